import SIPWire
import Testing

/// The Date header written from a time (RFC 3261 §20.17: RFC 1123 in GMT), read back by the parser.
@Suite struct SIPDateTests {
    @Test(arguments: [(Int64(1_289_690_940), "Sat, 13 Nov 2010 23:29:00 GMT"), (951_782_409, "Tue, 29 Feb 2000 00:00:09 GMT"),
                      (0, "Thu, 01 Jan 1970 00:00:00 GMT"), (-1, "Wed, 31 Dec 1969 23:59:59 GMT")])
    func rfc3261_20_17_datesAreWrittenInGMT(seconds: Int64, text: String) throws {
        let date = SIPDate(secondsSince1970: seconds)
        #expect(date.headerValue == text)
        #expect(try SIPDate(parsing: date.headerValue, header: "Date").text == text)
    }
}
