import ParleyCore
import Testing

/// `PhoneNumber`: the one reading of numbers the REST API, TwiML and SIP share.
@Suite struct PhoneNumberTests {
    @Test func e164KeepsPlusAndTwoToFifteenDigitsWithoutSeparators() {
        #expect(PhoneNumber.e164("+1 (555) 123-4567") == "+15551234567")
        #expect(PhoneNumber.e164("+44.20.7946.0958") == "+442079460958")
        #expect(PhoneNumber.e164("15551234567") == nil)
        #expect(PhoneNumber.e164("15551234567", requirePlus: false) == "+15551234567")
        #expect(PhoneNumber.e164("+1") == nil)
        #expect(PhoneNumber.e164("+1234567890123456") == nil)
        #expect(PhoneNumber.e164("+1555CALLNOW") == nil)
        #expect(PhoneNumber.e164("+١٢٣٤") == nil, "digits outside ASCII are not digits here")
        #expect(PhoneNumber.e164("") == nil)
    }

    @Test func dialedNumbersKeepTheirPlusAndRefuseAnythingElse() {
        #expect(PhoneNumber.dialed("+1 (555) 123-4567") == "+15551234567")
        #expect(PhoneNumber.dialed("0044 20 7946 0958") == "00442079460958")
        #expect(PhoneNumber.dialed("911") == "911")
        #expect(PhoneNumber.dialed("1") == nil)
        #expect(PhoneNumber.dialed("12+34") == nil)
        #expect(PhoneNumber.dialed("client:bob") == nil)
        #expect(PhoneNumber.isDialable("+1 555 1234") && !PhoneNumber.isDialable("+1 555 CALL NOW"))
    }
}
