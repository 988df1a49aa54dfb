import SDP
import SIP
import SIPWire
import Testing

/// Dialogs (RFC 3261 §12) and the requests made in them (§12.2.1.1, §13.2.2.4), built from a real
/// baresip INVITE and from requests of our own.
@Suite struct DialogTests {
    let ours = SIPSentBy(transport: "UDP", host: .ipv4("192.0.2.10"), port: 5060)
    let ourContact = SIPNameAddress(uri: SIPURI(user: "parley", host: .ipv4("192.0.2.10"), port: 5060))

    /// An INVITE from alice through two proxies that record-route (RFC 3261 §24.2's shape).
    func routedInvite(cseq: UInt32 = 314159) throws -> SIPRequest {
        try #require(sipMessage("""
            INVITE sip:bob@192.0.2.10 SIP/2.0
            Via: SIP/2.0/UDP p2.example.com;branch=z9hG4bK2d4790.1
            Via: SIP/2.0/UDP p1.example.com;branch=z9hG4bK74b43
            Via: SIP/2.0/UDP pc33.example.com;branch=z9hG4bK776asdhds
            Record-Route: <sip:p2.example.com;lr>, <sip:p1.example.com;lr;foo=bar>
            Record-Route: <sip:p0.example.com;lr>
            Max-Forwards: 68
            To: Bob <sip:bob@example.com>
            From: Alice <sip:alice@example.com>;tag=1928301774
            Call-ID: a84b4c76e66710@pc33.example.com
            CSeq: \(cseq) INVITE
            Contact: <sip:alice@pc33.example.com>
            Content-Length: 0


            """).request)
    }

    @Test func rfc3261_12_1_1_theUASDialogOfARealBaresipInvite() throws {
        let invite = try SIPOfferFixtures.request("baresip-1.0-savp-invite.sip")
        let dialog = try SIPDialog(uas: invite, localTag: "ourtag", contact: ourContact)
        #expect(dialog.id == SIPDialog.ID(callID: "6a28d4f92645c27a", localTag: "ourtag", remoteTag: "aa172352d95cf231"))
        #expect(dialog.remoteSequence == 43899)
        #expect(dialog.localSequence == nil)
        #expect(dialog.remoteTarget.description == "sip:alice-0x55f11431c090@127.0.0.1:5080")
        #expect(dialog.routeSet.isEmpty)
        #expect(dialog.remoteURI.uri.description == "sip:alice@127.0.0.1")
        #expect(dialog.localURI.uri.description == "sip:bob@127.0.0.1:5092")
        #expect(!dialog.isSecure)
        #expect(dialog.state == .confirmed)
    }

    @Test func rfc3261_12_1_1_routeSetIsRecordRouteInOrderAndRequestsLooseRoute() throws {
        var dialog = try SIPDialog(uas: routedInvite(), localTag: "b0b", contact: ourContact)
        #expect(dialog.routeSet.map(\.uri.description) == ["sip:p2.example.com;lr", "sip:p1.example.com;lr;foo=bar", "sip:p0.example.com;lr"])
        let bye = dialog.bye(sentBy: ours, branch: "z9hG4bKbye1")
        #expect(bye.startLine == "BYE sip:alice@pc33.example.com SIP/2.0")
        #expect(bye.routes.map(\.uri.description) == dialog.routeSet.map(\.uri.description))
        // §12.2.1.1: To is the remote party with its tag, From us with ours; the local CSeq starts.
        #expect(bye.to?.tag == "1928301774")
        #expect(bye.to?.uri.description == "sip:alice@example.com")
        #expect(bye.from?.tag == "b0b")
        #expect(bye.from?.uri.description == "sip:bob@example.com")
        #expect(bye.cseq == SIPCSeq(1, .bye))
        #expect(bye.contacts.isEmpty)
        #expect(bye.maxForwards == 70)
        #expect(bye.via?.branch == "z9hG4bKbye1")
        #expect(bye.via?.rport == .requested)
        try bye.validate()
    }

    @Test func rfc3261_12_1_1_secureOnlyForSIPSOverTLS() throws {
        var invite = try routedInvite()
        invite.uri = try SIPAnyURI(parsing: "sips:bob@192.0.2.10")
        #expect(try SIPDialog(uas: invite, localTag: "t", contact: ourContact, overTLS: true).isSecure)
        #expect(try !SIPDialog(uas: invite, localTag: "t", contact: ourContact, overTLS: false).isSecure)
    }

    @Test func rfc3261_12_1_1_aResponseKeepsTheDialogWithContactAndRecordRoute() throws {
        let invite = try routedInvite()
        let dialog = try SIPDialog(uas: invite, localTag: "b0b", contact: ourContact)
        let ok = dialog.response(to: invite, statusCode: 200)
        #expect(ok.to?.tag == "b0b")
        #expect(ok.recordRoutes.count == 3)
        #expect(ok.contacts.first?.address == ourContact)
        let busy = dialog.response(to: invite, statusCode: 486)
        #expect(busy.contacts.isEmpty && busy.recordRoutes.isEmpty)
    }

    @Test func rfc3261_12_2_1_1_strictRouterTakesTheRequestURI() throws {
        var invite = try routedInvite()
        invite.headers.set("Record-Route", "<sip:strict.example.com;method=INVITE>, <sip:p1.example.com;lr>")
        var dialog = try SIPDialog(uas: invite, localTag: "b0b", contact: ourContact)
        let info = dialog.info(body: Array("Signal=5\r\nDuration=160\r\n".utf8),
                               contentType: SIPMediaType(type: "application", subtype: "dtmf-relay"), sentBy: ours, branch: "z9hG4bKi")
        #expect(info.uri.description == "sip:strict.example.com")
        #expect(info.routes.map(\.uri.description) == ["sip:p1.example.com;lr", "sip:alice@pc33.example.com"])
        #expect(info.contentType?.subtype == "dtmf-relay")
        #expect(info.bodyText == "Signal=5\r\nDuration=160\r\n")
    }

    @Test func rfc3261_12_1_2_theUACDialogReversesRecordRoute() throws {
        let invite = SIPRequest.invite(to: SIPNameAddress(uri: SIPURI(user: "bob", host: .hostname("example.com"))),
                                       from: SIPNameAddress(displayName: "Parley", uri: SIPURI(user: "alice", host: .hostname("parley.test"))),
                                       fromTag: "a1", callID: "call-1", cseq: 7, contact: ourContact, sentBy: ours, branch: "z9hG4bKinv")
        var ringing = SIPResponse(replyingTo: invite, statusCode: 180, toTag: "b2",
                                  headers: ["Record-Route": "<sip:p1.example.com;lr>", "Contact": "<sip:bob@198.51.100.7>"])
        ringing.headers.add("Record-Route", "<sip:p2.example.com;lr>")
        var dialog = try SIPDialog(uac: invite, response: ringing)
        #expect(dialog.state == .early)
        #expect(dialog.id == SIPDialog.ID(callID: "call-1", localTag: "a1", remoteTag: "b2"))
        #expect(dialog.routeSet.map(\.uri.description) == ["sip:p2.example.com;lr", "sip:p1.example.com;lr"])
        #expect(dialog.localSequence == 7)
        #expect(dialog.remoteSequence == nil)

        // §13.2.2.4: the 2xx confirms it and its Record-Route becomes the route set.
        let ok = SIPResponse(replyingTo: invite, statusCode: 200, toTag: "b2",
                             headers: ["Record-Route": "<sip:p3.example.com;lr>", "Contact": "<sip:bob@198.51.100.8>"])
        dialog.receive(ok)
        #expect(dialog.state == .confirmed)
        #expect(dialog.routeSet.map(\.uri.description) == ["sip:p3.example.com;lr"])
        #expect(dialog.remoteTarget.description == "sip:bob@198.51.100.8")

        let ack = dialog.ack(for: ok, sentBy: ours, branch: "z9hG4bKack")
        #expect(ack.cseq == SIPCSeq(7, .ack))
        #expect(ack.startLine == "ACK sip:bob@198.51.100.8 SIP/2.0")
        #expect(ack.via?.branch == "z9hG4bKack")
        try ack.validate()
    }

    @Test func rfc3261_12_1_2_noDialogFromAFailureOrWithoutTag() throws {
        let invite = SIPRequest.invite(to: SIPNameAddress(uri: SIPURI(user: "bob", host: .hostname("example.com"))),
                                       from: SIPNameAddress(uri: SIPURI(user: "alice", host: .hostname("parley.test"))),
                                       contact: ourContact, sentBy: ours)
        #expect(throws: SIPDialogError.notDialogCreating(486)) {
            _ = try SIPDialog(uac: invite, response: SIPResponse(replyingTo: invite, statusCode: 486, toTag: "x"))
        }
        #expect(throws: SIPDialogError.missingTag("To")) {
            _ = try SIPDialog(uac: invite, response: SIPResponse(replyingTo: invite, statusCode: 180))
        }
    }

    @Test func rfc3261_12_2_1_1_localCSeqIncrementsAndReinviteCarriesTheOffer() throws {
        var dialog = try SIPDialog(uas: routedInvite(), localTag: "b0b", contact: ourContact)
        let offer = SIPAudioOffer.make(SIPLocalAudio(address: "192.0.2.10", port: 40000, direction: .sendonly, sessionID: 5))
        let reinvite = dialog.reinvite(offer: offer, sentBy: ours)
        let info = dialog.request(.info, sentBy: ours)
        let bye = dialog.bye(sentBy: ours)
        #expect([reinvite, info, bye].map { $0.cseq?.number } == [1, 2, 3])
        #expect(reinvite.contacts.first?.address == ourContact)
        #expect(reinvite.contentType?.matches(.sdp) == true)
        #expect(try SessionDescription(parsing: reinvite.body).media.first?.direction == .sendonly)
        // §8.1.1.7: each request its own branch with the magic cookie.
        let branches = [reinvite, info, bye].compactMap { $0.via?.branch }
        #expect(Set(branches).count == 3 && branches.allSatisfy { $0.hasPrefix("z9hG4bK") && $0.count > 7 })
        #expect(dialog.localSequence == 3)
        try reinvite.validate()
    }

    @Test func rfc3261_12_2_2_aLowerCSeqIsRefusedWith500() throws {
        var dialog = try SIPDialog(uas: routedInvite(), localTag: "b0b", contact: ourContact)
        func inDialog(_ method: SIPMethod, _ cseq: UInt32, contact: String? = nil) throws -> SIPRequest {
            var request = try routedInvite()
            request.method = method
            request.headers.set("To", "Bob <sip:bob@example.com>;tag=b0b")
            request.headers.set("CSeq", "\(cseq) \(method)")
            if let contact { request.headers.set("Contact", contact) }
            return request
        }
        #expect(throws: SIPDialogError.outOfOrder(cseq: 314158, last: 314159)) {
            var copy = dialog
            try copy.receive(inDialog(.info, 314158))
        }
        #expect(SIPDialogError.outOfOrder(cseq: 1, last: 2).statusCode == 500)
        try dialog.receive(inDialog(.ack, 314159))
        try dialog.receive(inDialog(.invite, 314160, contact: "<sip:alice@203.0.113.9:5070>"))
        #expect(dialog.remoteSequence == 314160)
        #expect(dialog.remoteTarget.description == "sip:alice@203.0.113.9:5070")

        var stranger = try inDialog(.bye, 314161)
        stranger.headers.set("To", "Bob <sip:bob@example.com>;tag=other")
        #expect(throws: SIPDialogError.noSuchDialog) {
            var copy = dialog
            try copy.receive(stranger)
        }
        #expect(SIPDialogError.noSuchDialog.statusCode == 481)
        #expect(dialog.matches(try inDialog(.bye, 314161)))
    }

    @Test func rfc3261_9_1_cancelMatchesTheInvite() throws {
        let invite = SIPRequest.invite(to: SIPNameAddress(uri: SIPURI(user: "bob", host: .hostname("example.com"))),
                                       from: SIPNameAddress(uri: SIPURI(user: "alice", host: .hostname("parley.test"))),
                                       fromTag: "a1", callID: "c1", cseq: 3, contact: ourContact, sentBy: ours, branch: "z9hG4bKinv",
                                       routeSet: [SIPNameAddress(uri: SIPURI(host: .hostname("proxy.example.com"), parameters: [SIPParameter("lr")]))],
                                       headers: ["X-PH-Team": "blue"])
        #expect(invite.startLine == "INVITE sip:bob@example.com SIP/2.0")
        #expect(invite.customHeaders.first?.value == "blue")
        let cancel = try #require(invite.makeCancel())
        #expect(cancel.uri == invite.uri)
        #expect(cancel.cseq == SIPCSeq(3, .cancel))
        #expect(cancel.vias == Array(invite.vias.prefix(1)))
        #expect(cancel.callID == "c1" && cancel.from == invite.from && cancel.to == invite.to)
        #expect(cancel.routes == invite.routes)
        #expect(cancel.body.isEmpty)
        try cancel.validate()
        #expect(cancel.makeCancel() == nil)
    }

    @Test func rfc3261_17_1_1_3_theACKOfAFailureSharesTheInviteBranch() throws {
        let invite = SIPRequest.invite(to: SIPNameAddress(uri: SIPURI(user: "bob", host: .hostname("example.com"))),
                                       from: SIPNameAddress(uri: SIPURI(user: "alice", host: .hostname("parley.test"))),
                                       fromTag: "a1", callID: "c1", contact: ourContact, sentBy: ours, branch: "z9hG4bKinv")
        let busy = SIPResponse(replyingTo: invite, statusCode: 486, toTag: "b9")
        let ack = try #require(invite.makeACK(for: busy))
        #expect(ack.via?.branch == "z9hG4bKinv")
        #expect(ack.vias.count == 1)
        #expect(ack.to?.tag == "b9")
        #expect(ack.cseq == SIPCSeq(1, .ack))
        #expect(ack.uri == invite.uri)
        try ack.validate()
        #expect(invite.makeACK(for: SIPResponse(replyingTo: invite, statusCode: 200, toTag: "b9")) == nil)
    }

    @Test func rfc3261_8_1_1_identifiersAreFreshAndWellFormed() throws {
        var a = CountingGenerator(value: 1), b = CountingGenerator(value: 1)
        #expect(SIPIdentifiers.branch(using: &a) == SIPIdentifiers.branch(using: &b))
        let branch = SIPIdentifiers.branch(using: &a)
        #expect(branch.hasPrefix("z9hG4bK") && branch.count > 12)
        let callID = SIPIdentifiers.callID(host: "parley.test", using: &a)
        #expect(try SIPCallID(parsing: callID, header: "Call-ID").value == callID)
        #expect(callID.hasSuffix("@parley.test") && callID.count == 32 + 12)
        #expect(SIPIdentifiers.tag() != SIPIdentifiers.tag())
        #expect(try SIPToken(parsing: SIPIdentifiers.tag(using: &a), header: "tag").token.count >= 6)
    }
}
