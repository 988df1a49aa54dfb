import SIP
import Testing

/// INFO bodies carrying keys (RFC 6086 INFO; Cisco's `application/dtmf-relay`, `application/dtmf`).
@Suite struct DTMFInfoTests {
    func parse(_ subtype: String, _ text: String) throws(SIPDTMFInfoError) -> SIPDTMFInfo {
        try SIPDTMFInfo(type: "application", subtype: subtype, body: Array(text.utf8))
    }

    @Test func dtmfRelayAsPhonesSendIt() throws {
        #expect(try parse("dtmf-relay", "Signal=5\r\nDuration=160\r\n") == SIPDTMFInfo(key: "5", duration: 160))
        #expect(try parse("DTMF-Relay", "signal = *\nduration= 250\n") == SIPDTMFInfo(key: "*", duration: 250))
        #expect(try parse("dtmf-relay", "Signal=#") == SIPDTMFInfo(key: "#"))
        #expect(try parse("dtmf-relay", "Signal=11\r\nDuration=100") == SIPDTMFInfo(key: "#", duration: 100))
        #expect(try parse("dtmf-relay", "Signal=d\r\n") == SIPDTMFInfo(key: "D"))
        // A duration that is not a number is left out; the key still counts.
        #expect(try parse("dtmf-relay", "Signal=1\r\nDuration=-5\r\n") == SIPDTMFInfo(key: "1"))
    }

    @Test func applicationDTMFIsTheKeyOrItsEventCode() throws {
        #expect(try parse("dtmf", "7") == SIPDTMFInfo(key: "7"))
        #expect(try parse("dtmf", " 10\r\n") == SIPDTMFInfo(key: "*"))
    }

    @Test func bodiesWithoutAKeyAre400AndOtherTypes415() {
        #expect(throws: SIPDTMFInfoError.malformed) { try parse("dtmf-relay", "Duration=160") }
        #expect(throws: SIPDTMFInfoError.malformed) { try parse("dtmf-relay", "Signal=E") }
        #expect(throws: SIPDTMFInfoError.malformed) { try parse("dtmf", "16") }
        #expect(throws: SIPDTMFInfoError.malformed) { try parse("dtmf", String(repeating: "5", count: 2000)) }
        #expect(throws: SIPDTMFInfoError.unsupportedType) { try parse("media_control+xml", "<x/>") }
        #expect(SIPDTMFInfoError.unsupportedType.statusCode == 415)
        #expect(SIPDTMFInfoError.malformed.statusCode == 400)
    }

    @Test func theRelayBodyParsesBack() throws {
        let info = SIPDTMFInfo(key: "9", duration: 200)
        #expect(String(decoding: info.relayBody, as: UTF8.self) == "Signal=9\r\nDuration=200\r\n")
        #expect(try parse("dtmf-relay", String(decoding: info.relayBody, as: UTF8.self)) == info)
    }
}
