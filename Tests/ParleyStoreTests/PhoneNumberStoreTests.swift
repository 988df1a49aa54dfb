import ParleyStore
import Testing

/// `IncomingPhoneNumbers` in both stores: create, find by SID and by number, list, update,
/// delete; a number belongs to one account on the server.
@Suite struct PhoneNumberStoreTests {
    @Test(arguments: StoreKind.allCases)
    func phoneNumbersLifecycle(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let account = try store.createAccount(friendlyName: "Acme")
        let other = try store.createAccount(friendlyName: "Globex")
        let draft = PhoneNumberDraft(phoneNumber: "+15551230000", friendlyName: "main", voiceURL: "https://a.example/voice")
        let created = try store.createPhoneNumber(draft, accountSid: account.sid)
        #expect(created.sid.hasPrefix("PN") && created.draft == draft && created.accountSid == account.sid)
        #expect(try store.phoneNumber(sid: created.sid) == created)
        #expect(try store.phoneNumber(number: "+15551230000") == created)
        #expect(try store.phoneNumber(number: "+15551239999") == nil)
        #expect(throws: StoreError.self) { try store.createPhoneNumber(draft, accountSid: other.sid) }
        #expect(throws: StoreError.self) { try store.createPhoneNumber(PhoneNumberDraft(phoneNumber: "+1555"), accountSid: "ACnone") }
        let second = try store.createPhoneNumber(PhoneNumberDraft(phoneNumber: "+15551230001"), accountSid: account.sid)
        #expect(try store.phoneNumbers(accountSid: account.sid, phoneNumber: nil).map(\.sid) == [created.sid, second.sid])
        #expect(try store.phoneNumbers(accountSid: account.sid, phoneNumber: "+15551230001").map(\.sid) == [second.sid])
        #expect(try store.phoneNumbers(accountSid: other.sid, phoneNumber: nil).isEmpty)

        var edited = created
        edited.draft.voiceURL = "https://b.example/voice"
        edited.draft.voiceMethod = "GET"
        #expect(try store.updatePhoneNumber(edited).draft == edited.draft)
        var clash = second
        clash.draft.phoneNumber = "+15551230000"
        #expect(throws: StoreError.self) { try store.updatePhoneNumber(clash) }
        #expect(try store.deletePhoneNumber(sid: created.sid))
        #expect(try !store.deletePhoneNumber(sid: created.sid))
        #expect(try store.phoneNumber(number: "+15551230000") == nil)
    }
}
