import JSONWire
import Signaling
import Testing

@Suite struct VoicePushNotificationTests {
    static let invite = VoicePushNotification(
        messageType: .call, callSid: "CA01", accountSid: "AC02", from: "client:alice", to: "client:bob", messageID: "NO03",
        bridgeToken: "jwt.bridge.token", customParameters: [("greeting", "hi there"), ("emoji", "\u{1F600}"), ("a&b", "c=d")])

    @Test func payloadUsesTwilioKeys() {
        let payload = Self.invite.payload
        #expect(payload.keys == ["twi_message_type", "twi_call_sid", "twi_account_sid", "twi_from", "twi_to",
                                 "twi_message_id", "twi_bridge_token", "twi_params"])
        #expect(payload["twi_message_type"] == .string("twilio.voice.call"))
        #expect(payload["twi_call_sid"] == .string("CA01"))
        #expect(payload["twi_from"] == .string("client:alice"))
        #expect(payload["twi_to"] == .string("client:bob"))
        #expect(payload["twi_params"] == .string("greeting=hi+there&emoji=%F0%9F%98%80&a%26b=c%3Dd"))
        #expect(Self.invite.recipientIdentity == "bob")
    }

    @Test func cancelOmitsBridgeTokenAndEmptyParams() {
        let cancel = VoicePushNotification(messageType: .cancel, callSid: "CA01", accountSid: "AC02", from: "client:alice",
                                           to: "bob", messageID: "NO04")
        #expect(cancel.payload["twi_message_type"] == .string("twilio.voice.cancel"))
        #expect(cancel.payload["twi_bridge_token"] == nil && cancel.payload["twi_params"] == nil)
        #expect(cancel.recipientIdentity == "bob")
    }

    @Test func parsesBackFromJSONAndDictionaries() throws {
        #expect(VoicePushNotification(json: Self.invite.payloadJSON) == Self.invite)
        var strings: [String: String] = [:]
        for key in Self.invite.payload.keys { strings[key] = Self.invite.payload[key]?.stringValue }
        let parsed = try #require(VoicePushNotification(dictionary: strings))
        #expect(parsed == Self.invite)
        #expect(parsed.customParameters.map(\.value) == ["hi there", "\u{1F600}", "c=d"])
    }

    @Test(arguments: [
        #"{"twi_call_sid":"CA01"}"#,                                          // no type
        #"{"twi_message_type":"twilio.chat.message","twi_call_sid":"CA01"}"#,  // not voice
        #"{"twi_message_type":"twilio.voice.call"}"#,                         // no call SID
        #"{"twi_message_type":"twilio.voice.call","twi_call_sid":7}"#,        // not a string
        #"["twi_message_type"]"#, "not json", "",
    ])
    func rejectsOtherPayloads(json: String) {
        #expect(VoicePushNotification(json: Array(json.utf8)) == nil)
    }
}
