import WireKit

/// Dates as the vendor's REST API writes and reads them: RFC 2822 in resources
/// (`Tue, 31 Aug 2010 20:36:28 +0000`), ISO 8601 dates or UTC date-times in list filters
/// (`2009-07-06`, `2009-07-06T14:30:00Z`). Pure: epoch seconds in, text out, and back; no Foundation.
package enum RESTTime {
    /// RFC 2822 §3.3 date-time in UTC, e.g. `Tue, 31 Aug 2010 20:36:28 +0000`.
    package static func rfc2822(_ seconds: Int64) -> String { CivilTime.rfc1123(seconds) + " +0000" }

    /// ISO 8601 UTC date-time, as the Video v1 API writes dates and callback timestamps
    /// (`2010-08-31T20:36:28Z`).
    package static func iso8601(_ seconds: Int64) -> String {
        let days = CivilTime.floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilTime.civil(fromDays: days)
        let pad = CivilTime.pad
        return "\(year)-\(pad(Int64(month)))-\(pad(day))T\(pad(secondOfDay / 3600)):\(pad(secondOfDay % 3600 / 60)):\(pad(secondOfDay % 60))Z"
    }

    /// A parsed filter value: the instant it names and whether it named a whole day.
    package struct FilterTime: Equatable {
        /// Seconds since the epoch (midnight UTC for a date).
        package let seconds: Int64
        /// True for `YYYY-MM-DD`, false for a date-time.
        package let isDate: Bool
        /// Midnight UTC starting the day that contains `seconds`.
        package var dayStart: Int64 { CivilTime.floorDiv(seconds, 86_400) * 86_400 }
        /// The last second of that day.
        package var dayEnd: Int64 { dayStart + 86_399 }
    }

    /// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SSZ` or `YYYY-MM-DD HH:MM:SS` (UTC); nil otherwise.
    package static func parseFilter(_ text: String) -> FilterTime? {
        let b = Array(text.utf8)
        guard b.count == 10 || b.count == 19 || b.count == 20,
              let year = number(b, 0, 4), b[4] == UInt8(ascii: "-"), let month = number(b, 5, 2),
              b[7] == UInt8(ascii: "-"), let day = number(b, 8, 2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        let midnight = CivilTime.days(fromCivil: year, month, day) * 86_400
        if b.count == 10 { return FilterTime(seconds: midnight, isDate: true) }
        guard b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "),
              let hour = number(b, 11, 2), b[13] == UInt8(ascii: ":"), let minute = number(b, 14, 2),
              b[16] == UInt8(ascii: ":"), let second = number(b, 17, 2),
              hour < 24, minute < 60, second < 60,
              b.count == 19 || b[19] == UInt8(ascii: "Z") else { return nil }
        return FilterTime(seconds: midnight + hour * 3600 + minute * 60 + second, isDate: false)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func number(_ b: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        var n: Int64 = 0
        for i in start..<(start + count) {
            guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
            n = n * 10 + Int64(b[i] - 0x30)
        }
        return n
    }
}
