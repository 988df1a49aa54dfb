import ParleyCore
import Signaling
import Testing
@testable import ParleyVoice

/// The call's state machine on its own: inputs in, actions out, no network and no clock.
@Suite struct CallStateMachineTests {
    static func connected() -> CallStateMachine {
        var machine = CallStateMachine(callId: "id-1")
        _ = machine.handle(.callCreated(sid: "CA1"))
        _ = machine.handle(.ringing)
        _ = machine.handle(.answer(sdp: "v=0"))
        _ = machine.handle(.mediaConnected)
        _ = machine.handle(.signalingConnected)
        return machine
    }

    @Test func connectsWhenSignalingAndMediaAreBothUpInEitherOrder() {
        var machine = CallStateMachine(callId: "id-1")
        #expect(machine.handle(.ringing) == [.notify(.ringing)])
        #expect(machine.handle(.signalingConnected).isEmpty)
        #expect(machine.handle(.mediaConnected) == [.startAudio, .notify(.connected)])
        #expect(machine.state == .connected)
    }

    @Test func hangingUpBeforeTheCallIsCreatedCancelsByCallId() {
        var machine = CallStateMachine(callId: "id-1")
        let actions = machine.handle(.disconnectRequested)
        #expect(actions == [.send(.cancel(CallReference(callId: "id-1"))), .tearDown, .notify(.disconnected(nil))])
        #expect(machine.handle(.ringing).isEmpty)  // ended: nothing more happens
    }

    @Test func serverHangupBeforeConnectIsAFailureWithItsCode() {
        var machine = CallStateMachine(callId: "id-1")
        _ = machine.handle(.callCreated(sid: "CA1"))
        let actions = machine.handle(.hangup(code: 31486, reason: "busy"))
        #expect(actions.last == .notify(.failedToConnect(ParleyError(.busyHere, reason: "busy"))))
    }

    /// The server answered, then hung up before our media was up (`<Hangup>` first): connected,
    /// then disconnected without an error, as Twilio reports it.
    @Test func answeredThenHungUpBeforeMediaConnectsAndDisconnects() {
        var machine = CallStateMachine(callId: "id-1")
        _ = machine.handle(.callCreated(sid: "CA1"))
        _ = machine.handle(.answer(sdp: "v=0"))
        #expect(machine.handle(.signalingConnected).isEmpty)
        #expect(machine.handle(.hangup(code: nil, reason: nil)) == [.notify(.connected), .tearDown, .notify(.disconnected(nil))])
        #expect(machine.state == .disconnected)
    }

    @Test func mediaLossRestartsICEAndRecovers() {
        var machine = Self.connected()
        let lost = machine.handle(.mediaInterrupted)
        #expect(lost.contains(.restartICE))
        #expect(lost.contains(.notify(.reconnecting(ParleyError(.mediaConnection, reason: "media connection lost")))))
        #expect(machine.state == .reconnecting)
        #expect(machine.handle(.answer(sdp: "restart")) == [.applyAnswer("restart")])
        #expect(machine.handle(.mediaRecovered) == [.notify(.reconnected)])
        #expect(machine.state == .connected)
    }

    @Test func signalingAndMediaLostTogetherReconnectOnlyWhenBothAreBack() {
        var machine = Self.connected()
        #expect(machine.handle(.signalingInterrupted).count == 2)  // notify + timer
        let media = machine.handle(.mediaInterrupted)
        #expect(!media.contains(.restartICE))  // no signaling to send the offer on
        #expect(machine.handle(.signalingResumed) == [.restartICE])
        #expect(machine.handle(.mediaRecovered) == [.notify(.reconnected)])
    }

    @Test func reconnectingGivesUpAfterTheWindowWithTheFirstError() {
        var machine = Self.connected()
        let actions = machine.handle(.signalingInterrupted)
        guard case .startReconnectTimer(let generation, let delay)? = actions.last else {
            Issue.record("no timer in \(actions)")
            return
        }
        #expect(delay == .seconds(30))
        #expect(machine.handle(.reconnectTimeout(generation: generation + 1)).isEmpty)  // a stale timer
        let ended = machine.handle(.reconnectTimeout(generation: generation))
        #expect(ended.last == .notify(.disconnected(ParleyError(.signalingConnectionDisconnected,
                                                               reason: "the signaling connection dropped"))))
        #expect(machine.state == .disconnected)
    }
}
