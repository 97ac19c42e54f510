import Plot

extension ReportPage {
    /// "Who used your data": what each app read, wrote or deleted in the period, from the access
    /// log (counts and times only, never a value).
    static func accessSection(_ data: ReportData) -> Node<HTML.BodyContext> {
        .section(
            .id("access"),
            .h2("Who used your data"),
            .if(
                data.accessLines.isEmpty,
                empty("No app read or wrote anything in this period that the access log still holds.")),
            .if(!data.accessLines.isEmpty, .ul(.forEach(data.accessLines) { .li(.text($0)) }))
        )
    }
}
