import SIP
import SIPWire
import Testing

/// RFC 4028 session timers as the UAS of a phone's INVITE, and as the UAC of ours, on a virtual clock (seconds).
@Suite struct SessionTimerTests {
    func invite(_ extra: String) throws -> SIPRequest {
        try #require(sipMessage("""
            INVITE sip:bob@192.0.2.10 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.20:5080;branch=z9hG4bKst1
            Max-Forwards: 70
            To: <sip:bob@192.0.2.10>
            From: <sip:alice@192.0.2.10>;tag=a1
            Call-ID: st-1
            CSeq: 1 INVITE
            Contact: <sip:alice@192.0.2.20:5080>
            \(extra)
            Content-Length: 0


            """).request)
    }

    @Test func rfc4028_9_anIntervalBelowTheMinimumIsRefused422WithMinSE() throws {
        let request = try invite("Supported: timer\nSession-Expires: 60")
        #expect(SIPSessionTimer.negotiate(request, now: 0) == .tooSmall(minSE: 90))
        // The request's own larger Min-SE is the floor too (§5).
        let raised = try invite("Supported: timer\nSession-Expires: 100\nMin-SE: 120")
        #expect(SIPSessionTimer.negotiate(raised, now: 0) == .tooSmall(minSE: 120))
    }

    @Test func rfc4028_9_thePhoneRefreshesWhenItAsksToAndSupportsTimer() throws {
        let request = try invite("Supported: timer\nSession-Expires: 1800;refresher=uac\nMin-SE: 90")
        guard case .accept(let timer) = SIPSessionTimer.negotiate(request, now: 100) else { Issue.record("not accepted"); return }
        #expect(timer.interval == 1800)
        #expect(timer.refresher == .remote)
        #expect(timer.responseHeaders["Session-Expires"] == "1800;refresher=uac")
        #expect(timer.responseHeaders["Require"] == "timer")
        // §10: BYE at the interval less min(32, interval/3) without a refresh.
        #expect(timer.nextCheck == 100 + 1800 - 32)
        #expect(timer.due(now: 100 + 1767) == nil)
        #expect(timer.due(now: 100 + 1768) == .expired)
    }

    @Test func rfc4028_9_withoutSupportedTimerWeRefreshAtHalfTheInterval() throws {
        let request = try invite("Session-Expires: 120")
        guard case .accept(var timer) = SIPSessionTimer.negotiate(request, now: 0) else { Issue.record("not accepted"); return }
        #expect(timer.refresher == .local)
        #expect(timer.responseHeaders["Session-Expires"] == "120;refresher=uas")
        #expect(timer.responseHeaders["Require"] == nil)
        #expect(timer.nextCheck == 60)
        #expect(timer.due(now: 59.9) == nil)
        #expect(timer.due(now: 60) == .refresh)
        #expect(timer.refreshHeaders["Session-Expires"] == "120;refresher=uac")
        // Our refresh succeeded: the next one half an interval later.
        timer.refreshed(now: 61)
        #expect(timer.nextCheck == 121)
        // Refreshes keep failing: past the whole interval the session is over.
        #expect(timer.due(now: 180) == .refresh)
        #expect(timer.due(now: 181) == .expired)
    }

    @Test func rfc4028_7_4_thePhonesAnswerToOurRefreshCanHandTheRefreshOver() throws {
        var timer = SIPSessionTimer(interval: 300, refresher: .local, refreshedAt: 0, peerSupportsTimer: true)
        timer.refreshed(now: 150, response: try ok("Session-Expires: 600;refresher=uas"))
        #expect(timer.interval == 600)
        #expect(timer.refresher == .remote)
        #expect(timer.nextCheck == 150 + 600 - 32)
        timer.raise(toMinSE: 900)
        #expect(timer.interval == 900)
    }

    @Test func aPhoneRefreshRestartsTheClockWithWhatItNegotiated() throws {
        var timer = SIPSessionTimer(interval: 1800, refresher: .remote, refreshedAt: 0, peerSupportsTimer: true)
        let refresh = try invite("Supported: timer\nSession-Expires: 900;refresher=uac")
        guard case .accept(let negotiated) = SIPSessionTimer.negotiate(refresh, now: 800) else { Issue.record("not accepted"); return }
        timer.refreshed(now: 800, negotiated: negotiated)
        #expect(timer.interval == 900)
        #expect(timer.nextCheck == 800 + 900 - 32)
    }

    @Test func noSessionExpiresAndNoPreferenceMeansNoTimer() throws {
        #expect(SIPSessionTimer.negotiate(try invite("Supported: timer"), now: 0, preferred: nil) == .none)
        guard case .accept(let timer) = SIPSessionTimer.negotiate(try invite("Supported: timer"), now: 0) else {
            Issue.record("not accepted"); return
        }
        #expect(timer.interval == 1800)
        #expect(timer.refresher == .remote)
    }

    func ok(_ extra: String) throws -> SIPResponse {
        try #require(sipMessage("""
            SIP/2.0 200 OK
            Via: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bKu1
            To: <sip:bob@192.0.2.20>;tag=b1
            From: <sip:alice@192.0.2.10>;tag=a1
            Call-ID: st-2
            CSeq: 1 INVITE
            \(extra)
            Content-Length: 0


            """).response)
    }

    /// As UAC of an INVITE (a call we placed): the callee's 2xx decides (§7.2).
    @Test func rfc4028_7_2_theCalleesAnswerSetsOurTimerAsUAC() throws {
        let us = try #require(SIPSessionTimer.accepted(try ok("Require: timer\nSession-Expires: 90;refresher=uac"), now: 10))
        #expect(us.refresher == .local)
        #expect(us.interval == 90)
        #expect(us.peerSupportsTimer)
        #expect(us.due(now: 10 + 45) == .refresh)
        let them = try #require(SIPSessionTimer.accepted(try ok("Supported: timer\nSession-Expires: 1800;refresher=uas"), now: 0))
        #expect(them.refresher == .remote)
        #expect(them.nextCheck == 1800 - 32)
        // No refresher named: we, the UAC, refresh.
        #expect(SIPSessionTimer.accepted(try ok("Session-Expires: 600"), now: 0)?.refresher == .local)
        #expect(SIPSessionTimer.accepted(try ok("Supported: timer"), now: 0) == nil)
        #expect(SIPSessionTimer.accepted(try ok("Session-Expires: 30"), now: 0) == nil)
    }
}
