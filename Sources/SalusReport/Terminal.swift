import Foundation

/// Whether a command's output gets pictures and colours: pictures only at a terminal, colours
/// only at a terminal and when `NO_COLOR` is unset or empty (https://no-color.org) and `TERM` is
/// not `dumb`. Piped output stays plain text for other programs.
package struct TerminalStyle: Sendable, Equatable {
    package var graphics: Bool
    package var colours: Bool

    package init(graphics: Bool, colours: Bool) {
        self.graphics = graphics
        self.colours = graphics && colours
    }

    /// The style for a stream that is a terminal or not, under `environment`.
    package init(isTerminal: Bool, environment: [String: String]) {
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        self.init(graphics: isTerminal, colours: !noColor && environment["TERM"] != "dumb")
    }

    /// The style for standard output of this process.
    package static var standardOutput: TerminalStyle {
        TerminalStyle(isTerminal: isatty(STDOUT_FILENO) == 1, environment: ProcessInfo.processInfo.environment)
    }

    /// ANSI colours (the 256-colour palette).
    package enum Colour: Int, Sendable {
        case orange = 208
        case lightBlue = 117
        case blue = 33
        case darkBlue = 19
        case grey = 246
        case green = 35
        case red = 167
    }

    /// `text` in `colour` when colours are on, else `text` unchanged.
    package func paint(_ text: String, _ colour: Colour) -> String {
        colours && !text.isEmpty ? "\u{1B}[38;5;\(colour.rawValue)m\(text)\u{1B}[0m" : text
    }
}

/// Horizontal bars of block characters, in eighths of a column.
package enum TerminalBars {
    /// A bar of `value` out of `maximum` over `width` columns, padded with spaces to `width`
    /// so that what follows lines up. Empty for a missing, zero or negative value.
    package static func bar(_ value: Double?, maximum: Double, width: Int) -> String {
        guard width > 0 else { return "" }
        guard let value, value > 0, maximum > 0, value.isFinite, maximum.isFinite else {
            return String(repeating: " ", count: width)
        }
        let eighths = Int((min(value / maximum, 1) * Double(width * 8)).rounded())
        let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        var text = String(repeating: "█", count: eighths / 8) + partials[eighths % 8]
        if text.isEmpty { text = "▏" }  // a value above zero is never invisible
        return text + String(repeating: " ", count: max(0, width - text.count))
    }
}

/// One line per night: the stages across the night as block heights, coloured by stage.
package enum TerminalHypnogram {
    /// The block for a stage: awake highest, deep lowest, in bed a dot.
    package static func glyph(_ stage: SleepStage?) -> Character {
        switch stage {
        case .awake: "█"
        case .rem: "▆"
        case .core, .asleep: "▄"
        case .deep: "▂"
        case .inBed: "·"
        case nil: " "
        }
    }

    package static func colour(_ stage: SleepStage) -> TerminalStyle.Colour {
        switch stage {
        case .awake: .orange
        case .rem: .lightBlue
        case .core, .asleep: .blue
        case .deep: .darkBlue
        case .inBed: .grey
        }
    }

    /// The stages of `night` over `width` columns, each column showing the stage at its middle.
    package static func strip(_ night: Night, width: Int, style: TerminalStyle) -> String {
        let span = night.end.timeIntervalSince(night.start)
        guard width > 0, span > 0 else { return "" }
        var text = ""
        var run = ""
        var runStage: SleepStage?
        func flush() {
            if let stage = runStage { text += style.paint(run, colour(stage)) } else { text += run }
            run = ""
        }
        for column in 0..<width {
            let instant = night.start.addingTimeInterval(span * (Double(column) + 0.5) / Double(width))
            let stage = night.stage(at: instant)
            if stage != runStage, !run.isEmpty { flush() }
            runStage = stage
            run.append(glyph(stage))
        }
        flush()
        return text
    }

    /// "Fri 2026-11-20  22:41 ▄▄▂▂▄▆█… 06:52  asleep 7h12, deep 1h05, REM 1h40, awake 0h20".
    package static func line(_ night: Night, width: Int, timeZone: TimeZone, style: TerminalStyle) -> String {
        let clock = DateFormatter()
        clock.locale = Locale(identifier: "en_US_POSIX")
        clock.timeZone = timeZone
        clock.dateFormat = "HH:mm"
        let weekday = DateFormatter()
        weekday.locale = Locale(identifier: "en_US_POSIX")
        weekday.timeZone = timeZone
        weekday.dateFormat = "EEE"
        var figures = ["asleep \(Nights.duration(night.secondsAsleep))"]
        for stage in [SleepStage.deep, .core, .rem, .awake] where night.intervals.contains(where: { $0.stage == stage }) {
            figures.append("\(stage.label.lowercased() == "rem" ? "REM" : stage.label.lowercased()) \(Nights.duration(night.seconds(in: stage)))")
        }
        return "\(weekday.string(from: night.end)) \(night.day)  \(clock.string(from: night.start)) "
            + strip(night, width: width, style: style)
            + " \(clock.string(from: night.end))  " + figures.joined(separator: ", ")
    }
}
