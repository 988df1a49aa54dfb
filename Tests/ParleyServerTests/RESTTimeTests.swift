@testable import PlatformCore
import Testing

/// RFC 2822 dates and the list filters' ISO 8601 dates (`RESTTime`), checked against Python's
/// `email.utils.formatdate` and `calendar.timegm`.
@Suite struct RESTTimeTests {
    @Test(arguments: [
        (Int64(0), "Thu, 01 Jan 1970 00:00:00 +0000"),
        (1_283_286_988, "Tue, 31 Aug 2010 20:36:28 +0000"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 +0000"),
        (4_107_542_399, "Sun, 28 Feb 2100 23:59:59 +0000"),
        (1_800_000_000, "Fri, 15 Jan 2027 08:00:00 +0000"),
        (-1, "Wed, 31 Dec 1969 23:59:59 +0000"),
    ])
    func formatsRFC2822(seconds: Int64, text: String) {
        #expect(RESTTime.rfc2822(seconds) == text)
    }

    @Test func formatsISO8601AndParsesItBack() {
        #expect(RESTTime.iso8601(1_283_286_988) == "2010-08-31T20:36:28Z")
        #expect(RESTTime.iso8601(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(RESTTime.parseFilter(RESTTime.iso8601(1_800_000_000))?.seconds == 1_800_000_000)
    }

    @Test func parsesFilterDatesAndTimes() {
        #expect(RESTTime.parseFilter("2009-07-06") == .init(seconds: 1_246_838_400, isDate: true))
        #expect(RESTTime.parseFilter("2024-02-29T23:59:59Z") == .init(seconds: 1_709_251_199, isDate: false))
        #expect(RESTTime.parseFilter("2024-02-29 23:59:59") == .init(seconds: 1_709_251_199, isDate: false))
        let t = RESTTime.parseFilter("2009-07-06T13:00:00Z")
        #expect(t?.dayStart == 1_246_838_400 && t?.dayEnd == 1_246_838_400 + 86_399)
    }

    @Test(arguments: ["", "2009-7-06", "2009-13-01", "2023-02-29", "2009-07-06T24:00:00Z", "2009-07-06T10:00:00+01:00",
                      "2009-07-06X10:00:00Z", "２００９-07-06", "abcd-ef-gh", "2009-07-06T10:00:00ZZ"])
    func rejectsMalformedFilters(text: String) {
        #expect(RESTTime.parseFilter(text) == nil)
    }
}
