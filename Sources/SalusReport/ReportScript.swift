/// The page's own script: reads the JSON block and draws each `<canvas data-chart=…>` with
/// Chart.js (3.x, inlined before it). No network, no other library.
enum ReportScript {
    static let source = #"""
        (function () {
          "use strict";
          var data = JSON.parse(document.getElementById("salus-data").textContent);
          var zone = data.timeZone;
          Chart.defaults.animation = false;
          Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif';
          Chart.defaults.maintainAspectRatio = false;
          var stageColour = { awake: "#f97316", rem: "#38bdf8", core: "#2563eb", asleep: "#3b82f6", deep: "#1e3a8a", inBed: "#cbd5e1" };
          var stageLabel = { awake: "Awake", rem: "REM", core: "Core", asleep: "Asleep", deep: "Deep", inBed: "In bed" };
          var clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: zone });
          function clock(ms) { return clockFormat.format(new Date(ms)); }
          function dayLabel(day) {
            var parts = day.split("-");
            var date = new Date(Date.UTC(+parts[0], +parts[1] - 1, +parts[2], 12));
            return date.toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" });
          }

          var minuteFormat = new Intl.DateTimeFormat("en", { minute: "numeric", timeZone: zone });
          // The whole hours (in the report's zone) from start to end.
          function hours(start, end) {
            var first = start - (+minuteFormat.format(new Date(start))) * 60000 - (start % 60000);
            var ticks = [];
            for (var t = first; t <= end; t += 3600000) { if (t >= start) { ticks.push({ value: t }); } }
            return ticks;
          }

          function hypnogram(canvas, night) {
            var rows = night.rows.map(function (key) { return stageLabel[key]; });
            var datasets = night.rows.map(function (key) {
              return {
                label: stageLabel[key],
                backgroundColor: stageColour[key],
                grouped: false,
                barPercentage: 1.0,
                categoryPercentage: 0.9,
                data: night.segments.filter(function (s) { return s[0] === key; })
                  .map(function (s) { return { x: [s[1], s[2]], y: stageLabel[key] }; })
              };
            });
            return new Chart(canvas, {
              type: "bar",
              data: { labels: rows, datasets: datasets },
              options: {
                indexAxis: "y",
                plugins: {
                  legend: { display: false },
                  tooltip: { callbacks: { label: function (item) {
                    var raw = item.raw.x; return item.dataset.label + " " + clock(raw[0]) + "–" + clock(raw[1]);
                  } } }
                },
                scales: {
                  x: { type: "linear", min: night.start, max: night.end,
                       afterBuildTicks: function (axis) { axis.ticks = hours(night.start, night.end); },
                       ticks: { autoSkip: false, maxRotation: 0, callback: function (value) { return clock(value); } } },
                  // Every stage's row keeps its label, on a short night's small chart too.
                  y: { grid: { display: false }, ticks: { autoSkip: false } }
                }
              }
            });
          }

          function goalLine(label, values, colour) {
            return { type: "line", label: label, data: values, borderColor: colour, borderDash: [6, 4],
                     borderWidth: 2, pointRadius: 0, fill: false, order: 0 };
          }

          function steps(canvas) {
            var s = data.steps;
            return new Chart(canvas, {
              type: "bar",
              data: {
                labels: s.days.map(dayLabel),
                datasets: [
                  { label: s.label, data: s.values, order: 1,
                    backgroundColor: s.values.map(function (v) { return v !== null && v >= s.goal ? "#16a34a" : "#86efac"; }) },
                  goalLine("Goal", s.days.map(function () { return s.goal; }), "#b45309")
                ]
              },
              options: { plugins: { legend: { display: true } }, scales: { y: { beginAtZero: true } } }
            });
          }

          function stand(canvas) {
            var s = data.stand;
            return new Chart(canvas, {
              type: "bar",
              data: {
                labels: s.days.map(dayLabel),
                datasets: [
                  { label: s.label, data: s.hours, backgroundColor: "#22d3ee", order: 1 },
                  goalLine("Goal", s.goal, "#0e7490")
                ]
              },
              options: { scales: { y: { beginAtZero: true, suggestedMax: 12 } } }
            });
          }

          function heart(canvas) {
            var h = data.heart;
            return new Chart(canvas, {
              type: "bar",
              data: {
                labels: h.days.map(dayLabel),
                // The resting line (and its legend entry) only when a day has a resting heart rate.
                datasets: [
                  { label: "Range (min–max)", data: h.ranges, backgroundColor: "#fca5a5", borderRadius: 4, order: 1 }
                ].concat(h.resting.some(function (v) { return v !== null; }) ? [
                  { type: "line", label: "Resting", data: h.resting, borderColor: "#b91c1c", backgroundColor: "#b91c1c",
                    pointRadius: 3, spanGaps: true, order: 0 }
                ] : [])
              },
              options: { scales: { y: { suggestedMin: 40 } } }
            });
          }

          function temperature(canvas) {
            var t = data.temperature;
            return new Chart(canvas, {
              type: "line",
              data: {
                labels: t.days.map(dayLabel),
                datasets: [{ label: "Basal body temperature (" + t.unit + ")", data: t.values, borderColor: "#7c3aed",
                             backgroundColor: "#7c3aed", pointRadius: 3, spanGaps: true }]
              },
              options: { scales: { y: { ticks: { callback: function (v) { return v.toFixed(2); } } } } }
            });
          }

          function route(canvas, points) {
            var latitude = points.reduce(function (a, p) { return a + p[0]; }, 0) / points.length;
            var scale = Math.cos(latitude * Math.PI / 180);
            var xs = points.map(function (p) { return p[1] * scale; });
            var ys = points.map(function (p) { return p[0]; });
            var span = Math.max(Math.max.apply(null, xs) - Math.min.apply(null, xs), Math.max.apply(null, ys) - Math.min.apply(null, ys), 1e-5);
            var cx = (Math.max.apply(null, xs) + Math.min.apply(null, xs)) / 2, cy = (Math.max.apply(null, ys) + Math.min.apply(null, ys)) / 2;
            return new Chart(canvas, {
              type: "scatter",
              data: { datasets: [{ label: "Route", showLine: true, borderColor: "#ea580c", borderWidth: 3, pointRadius: 0,
                                   data: points.map(function (p, i) { return { x: xs[i], y: ys[i] }; }) }] },
              options: {
                plugins: { legend: { display: false }, tooltip: { enabled: false } },
                scales: { x: { display: false, min: cx - span * 0.6, max: cx + span * 0.6 },
                          y: { display: false, min: cy - span * 0.6, max: cy + span * 0.6 } }
              }
            });
          }

          var canvases = document.querySelectorAll("canvas[data-chart]");
          Array.prototype.forEach.call(canvases, function (canvas) {
            var index = +canvas.dataset.index;
            switch (canvas.dataset.chart) {
              case "night": hypnogram(canvas, data.nights[index]); break;
              case "steps": steps(canvas); break;
              case "stand": stand(canvas); break;
              case "heart": heart(canvas); break;
              case "temperature": temperature(canvas); break;
              case "route": route(canvas, data.routes[index]); break;
            }
          });
        })();
        """#
}
