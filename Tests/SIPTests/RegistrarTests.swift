import SIP
import Testing

/// The registrar's decisions (RFC 3261 §10.3 steps 6–8, RFC 5626 §6).
@Suite struct RegistrarTests {
    private func register(_ contacts: Registrar.Request.Contacts, expires: Int? = nil, callID: String = "c1", cseq: UInt32 = 1,
                          existing: [ContactBinding] = [], now: Double = 1_000) -> Registrar.Outcome {
        Registrar.decide(Registrar.Request(contacts: contacts, expires: expires, callID: callID, cseq: cseq, source: "udp:10.0.0.2:5060"),
                         existing: existing, now: now)
    }

    private func bindings(_ outcome: Registrar.Outcome) -> [ContactBinding] {
        if case .ok(let bindings) = outcome { return bindings }
        return []
    }

    @Test func rfc3261_10_3_expiresComesFromTheContactThenTheHeaderThenTheDefault() {
        let outcome = register(.list([RequestedContact(uri: "sip:a@10.0.0.2", expires: 600), RequestedContact(uri: "sip:a@10.0.0.3")]),
                               expires: 1_800)
        #expect(bindings(outcome).map(\.expiresAt) == [1_600, 2_800])
        #expect(bindings(register(.list([RequestedContact(uri: "sip:a@10.0.0.2")]))).map(\.expiresAt) == [4_600])
    }

    @Test func expiriesAreBoundedLikePlivosRegTimeout() {
        #expect(register(.list([RequestedContact(uri: "sip:a@h", expires: 60)])) == .intervalTooBrief(minExpires: 120))
        let year = register(.list([RequestedContact(uri: "sip:a@h", expires: 365 * 86_400)]))
        #expect(bindings(year).first?.expiresAt == Double(1_000 + 30 * 86_400))
        #expect(bindings(register(.list([RequestedContact(uri: "sip:a@h", expires: 120)]))).count == 1)
    }

    @Test func aRefreshReplacesAndExpiresZeroRemovesOneBinding() {
        let first = bindings(register(.list([RequestedContact(uri: "sip:a@1"), RequestedContact(uri: "sip:a@2")])))
        let refreshed = bindings(register(.list([RequestedContact(uri: "sip:a@1", expires: 300)]), cseq: 2, existing: first, now: 1_100))
        #expect(refreshed.map(\.contact) == ["sip:a@1", "sip:a@2"] && refreshed[0].expiresAt == 1_400 && refreshed[0].cseq == 2)
        let removed = bindings(register(.list([RequestedContact(uri: "sip:a@2", expires: 0)]), cseq: 3, existing: refreshed, now: 1_200))
        #expect(removed.map(\.contact) == ["sip:a@1"])
    }

    @Test func rfc3261_10_3_step7_anOlderCSeqOnTheSameCallIDIsAborted() {
        let first = bindings(register(.list([RequestedContact(uri: "sip:a@1")]), cseq: 5))
        #expect(register(.list([RequestedContact(uri: "sip:a@1")]), cseq: 4, existing: first) == .outOfOrder)
        #expect(register(.list([RequestedContact(uri: "sip:a@1")]), cseq: 5, existing: first) == .outOfOrder)
        // Another Call-ID (another UA instance or a reboot) may update it whatever its CSeq.
        #expect(bindings(register(.list([RequestedContact(uri: "sip:a@1")]), callID: "c2", cseq: 1, existing: first)).first?.callID == "c2")
    }

    @Test func rfc3261_10_3_step6_theWildcardNeedsExpiresZeroAndRemovesEverything() {
        let first = bindings(register(.list([RequestedContact(uri: "sip:a@1"), RequestedContact(uri: "sip:a@2")])))
        #expect(register(.wildcard, expires: 3_600, existing: first) == .badRequest("Contact: * requires Expires: 0"))
        #expect(register(.wildcard, existing: first) == .badRequest("Contact: * requires Expires: 0"))
        #expect(register(.wildcard, expires: 0, cseq: 2, existing: first) == .ok(bindings: []))
        #expect(register(.wildcard, expires: 0, cseq: 1, existing: first) == .outOfOrder)
    }

    @Test func aQueryListsTheLiveBindingsOnly() {
        let first = bindings(register(.list([RequestedContact(uri: "sip:a@1", expires: 200), RequestedContact(uri: "sip:a@2", expires: 900)])))
        #expect(bindings(register(.query, existing: first, now: 1_500)).map(\.contact) == ["sip:a@2"])
    }

    @Test func rfc5626_6_theSameInstanceAndRegIDReplaceTheBindingWhateverItsURI() {
        let instance = "<urn:uuid:00000000-0000-1000-8000-000A95A0E128>"
        let first = bindings(register(.list([RequestedContact(uri: "sip:a@10.0.0.2:5060", instance: instance, regID: 1)])))
        let moved = bindings(register(.list([RequestedContact(uri: "sip:a@192.0.2.9:6000", instance: instance, regID: 1)]),
                                      callID: "c9", existing: first))
        #expect(moved.map(\.contact) == ["sip:a@192.0.2.9:6000"])
        let second = bindings(register(.list([RequestedContact(uri: "sip:a@192.0.2.9:6001", instance: instance, regID: 2)]),
                                       callID: "c9", cseq: 2, existing: moved))
        #expect(second.count == 2)
    }

    @Test func bindingsPerAddressOfRecordAreBounded() {
        var existing: [ContactBinding] = []
        for n in 0..<10 { existing = bindings(register(.list([RequestedContact(uri: "sip:a@\(n)")]), callID: "c\(n)", existing: existing)) }
        #expect(existing.count == 10)
        #expect(register(.list([RequestedContact(uri: "sip:a@overflow")]), callID: "x", existing: existing) == .tooManyContacts(max: 10))
    }
}
