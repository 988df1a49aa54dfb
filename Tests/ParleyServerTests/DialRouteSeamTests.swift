import Foundation
import HTTPWire
@testable import ParleyServer
import ParleyCore
import ParleyStore
import ParleyTestSupport
import Signaling
import Synchronization
import Testing
import TwiML
import VoiceREST
@testable import VoiceEngine

/// The leg-route seam (issue 14 item 1): a second `DialRoute` registered beside the client route
/// receives the `<Dial>` nouns the client route does not take and answers for its legs, with no
/// change to the engine. Here a test-only route takes `<Sip>`, records the ring and answers busy.
@Suite(.serialized) struct DialRouteSeamTests {
    @Test func aRegisteredRouteReceivesDialSipAndItsBusyRunsTheDialAction() async throws {
        try await VoiceHarness.run { h, parties in
            let route = BusySipRoute()
            await h.server.voice.register(route)
            let app = try h.makeApplication()
            h.app.set("/voice", #"<Response><Dial action="/dial-action" timeout="10"><Sip>sip:bob@example.com</Sip></Dial></Response>"#)
            h.app.set("/dial-action", "<Response/>")
            let alice = parties.add(try TestParty(try await h.client("alice", application: app.sid)))
            let callSid = try await alice.invite(to: "sip:bob@example.com")

            let action = try await DialEndingTests.request(h, "/dial-action")
            let rung = try #require(route.rung.withLock { $0.first })
            #expect(route.rung.withLock { $0.count } == 1)
            #expect(rung.uri == "sip:bob@example.com" && rung.parentSid == callSid)
            #expect(action.parameters["DialCallStatus"] == "busy")
            #expect(action.parameters["DialCallSid"] == rung.legSid)
            #expect(action.parameters["CallSid"] == callSid)
            let leg = try #require(try h.store.call(sid: rung.legSid))
            #expect(leg.status == .busy && leg.errorCode == 31486)
            #expect(leg.to == "sip:bob@example.com" && leg.parentCallSid == callSid && leg.direction == "outbound-dial")
            _ = try await alice.expectHangup()
        }
    }

    /// A REST-created call to `sip:…` reaches the route that takes it (the SIP gateway's, in the
    /// server): it answers 201 (the call as it stands: this route refused at once), the route
    /// rings the call's own leg, and its busy ends the call busy with 31486; a `To` no route takes
    /// is refused with 21211.
    @Test func restCallsToSipReachTheRouteThatTakesThem() async throws {
        try await VoiceHarness.run { h, _ in
            let route = BusySipRoute()
            await h.server.voice.register(route)
            let response = try await h.rest("POST", "/Calls.json", [("To", "sip:bob@example.com"), ("From", "+15550001111"),
                                                                   ("Twiml", "<Response/>")])
            #expect(response.status == 201, "\(response.bodyText)")
            #expect(response.jsonObject.string("status") == "busy" && response.jsonObject.string("direction") == "outbound-api")
            let sid = try #require(response.jsonObject.string("sid"))
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline, (try? h.store.call(sid: sid))?.status != .busy {
                try await Task.sleep(for: .milliseconds(20))
            }
            let call = try #require(try h.store.call(sid: sid))
            #expect(call.status == .busy && call.errorCode == 31486)
            #expect(route.rung.withLock { $0.map(\.legSid) } == [sid])
            let unrouted = try await h.rest("POST", "/Calls.json", [("To", "+15551234567"), ("From", "+15550001111"),
                                                                   ("Twiml", "<Response/>")])
            #expect(unrouted.status == 400 && unrouted.jsonObject.int("code") == 21211, "\(unrouted.bodyText)")
        }
    }
}

/// A `<Sip>` route that alerts no one: it records each ring and answers busy at once.
private final class BusySipRoute: DialRoute {
    struct Ring: Sendable {
        var uri: String
        var legSid: String
        var parentSid: String
    }

    let rung = Mutex<[Ring]>([])

    func makeLeg(for noun: TwiMLDialNoun, of call: VoiceCall, request: DialRequest, now: Int64) -> CallLeg? {
        guard case .sip(let sip) = noun else { return nil }
        let record = CallRecord(sid: SID.make("CA"), accountSid: call.parent.record.accountSid, parentCallSid: call.sid,
                                from: call.parent.record.from, to: sip.uri, direction: "outbound-dial", status: .queued,
                                startTime: now, createdAt: now, updatedAt: now)
        return CallLeg(record: record, endpoint: SilentEndpoint())
    }

    func outboundEndpoint(for request: OutboundCallRequest) -> (any LegEndpoint)? {
        request.to.hasPrefix("sip:") ? SilentEndpoint() : nil
    }

    func ring(_ leg: CallLeg, of call: VoiceCall, engine: isolated VoiceService) {
        rung.withLock { $0.append(Ring(uri: leg.record.to, legSid: leg.sid, parentSid: call.sid)) }
        engine.legRefused(call, leg, status: .busy, error: ParleyError(.busyHere, reason: "\(leg.record.to) is busy"))
    }
}

/// A party the engine cannot reach by any message (a leg that never answers).
private final class SilentEndpoint: LegEndpoint {
    func calleeRinging(_ leg: CallLeg, engine: isolated VoiceService) {}
    func connected(_ leg: CallLeg, engine: isolated VoiceService) {}
    func mediaAnswered(_ leg: CallLeg, sdp: String, engine: isolated VoiceService) {}
    func hangUp(_ leg: CallLeg, error: ParleyError?, engine: isolated VoiceService) {}
    func cancel(_ leg: CallLeg, code: ParleyError.Code, reason: String, engine: isolated VoiceService) {}
    func released(_ leg: CallLeg, engine: isolated VoiceService) {}
    func relayDigits(_ digits: String, to leg: CallLeg, engine: isolated VoiceService) {}
    func relay(_ message: CallMessage, to leg: CallLeg, engine: isolated VoiceService) -> Bool { false }
}
