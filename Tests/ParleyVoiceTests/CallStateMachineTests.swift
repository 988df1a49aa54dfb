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
        let resumed = machine.handle(.signalingResumed)
        #expect(resumed.first == .restartICE && resumed.count == 2, "\(resumed)")  // the restart and its timer
        #expect(machine.handle(.mediaRecovered) == [.notify(.reconnected)])
    }

    /// A long outage: ICE is restarted every `restartInterval` while media stays down (each
    /// restart sends fresh checks), never while signaling is down, and no more once media is
    /// back; the answer to the last offer is still applied when it comes after the recovery.
    @Test func iceIsRestartedAgainWhileMediaStaysDown() throws {
        var machine = Self.connected()
        func restartTimer(_ actions: [CallStateMachine.Action]) -> Int? {
            for case .startRestartTimer(let generation, let delay) in actions where delay == CallStateMachine.restartInterval {
                return generation
            }
            return nil
        }
        let lost = machine.handle(.mediaInterrupted)
        var timer = try #require(restartTimer(lost))
        #expect(machine.handle(.answer(sdp: "restart 1")) == [.applyAnswer("restart 1")])
        for attempt in 2...4 {
            let again = machine.handle(.restartTimeout(generation: timer))
            #expect(again.first == .restartICE, "attempt \(attempt): \(again)")
            #expect(machine.handle(.restartTimeout(generation: timer)).isEmpty)  // that timer is spent
            timer = try #require(restartTimer(again))
            #expect(machine.handle(.answer(sdp: "restart \(attempt)")) == [.applyAnswer("restart \(attempt)")])
        }
        // Signaling drops too: the timer sends nothing, the resumed socket carries a new offer.
        _ = machine.handle(.signalingInterrupted)
        #expect(machine.handle(.restartTimeout(generation: timer)).isEmpty)
        let resumed = machine.handle(.signalingResumed)
        #expect(resumed.first == .restartICE)
        timer = try #require(restartTimer(resumed))
        #expect(machine.handle(.mediaRecovered) == [.notify(.reconnected)])
        #expect(machine.handle(.restartTimeout(generation: timer)).isEmpty)
        #expect(machine.handle(.answer(sdp: "restart 5")) == [.applyAnswer("restart 5")])
        #expect(machine.state == .connected)
    }

    /// The network went away altogether: the restart's answer does not come, so the signaling
    /// socket is given up for a new one (a stalled TCP connection can stay silent long after the
    /// network is back), and the resumed one carries a new restart.
    @Test func anOverdueRestartAnswerRevivesSignaling() {
        var machine = Self.connected()
        let lost = machine.handle(.mediaInterrupted)
        guard case .startRestartTimer(let generation, _)? = lost.last else {
            Issue.record("no restart timer in \(lost)")
            return
        }
        let overdue = machine.handle(.restartTimeout(generation: generation))
        #expect(overdue.first == .reviveSignaling && overdue.count == 2, "\(overdue)")
        #expect(machine.handle(.signalingInterrupted).isEmpty)  // already reconnecting: no second notice
        #expect(machine.handle(.signalingResumed).first == .restartICE)
        #expect(machine.handle(.answer(sdp: "restart 2")) == [.applyAnswer("restart 2")])
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
