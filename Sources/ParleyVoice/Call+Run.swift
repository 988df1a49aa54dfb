import Foundation
import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization
import WebRTC

/// How a call comes to life and is driven: every input (signaling, media, the app) goes through
/// one ordered stream into the `CallStateMachine`, whose actions are carried out here.
extension Call {
    /// An outgoing call: connect to the server, offer, `invite`.
    static func outgoing(options: ConnectOptions, delegate: (any CallDelegate)?) -> Call {
        let call = Call(uuid: options.uuid, from: nil, to: options.params["To"], sid: nil, options: options.media,
                        delegate: delegate, accessToken: options.accessToken)
        let edge = options.media.edge
        Task.detached {
            do throws(ParleyError) {
                let server = try VoiceSettings.server(for: edge)
                let channel = try await VoiceSignaling.open(server: server, token: options.accessToken)
                try await call.begin(channel: channel, ownsChannel: true, subscribeKey: call.callId) { offer in
                    .invite(Invite(callId: call.callId, to: options.params["To"], params: options.params, sdp: offer))
                }
            } catch {
                call.inputs.yield(.serverError(code: error.code.rawValue, message: error.failureReason ?? error.code.text))
            }
            await call.drive()
        }
        return call
    }

    /// An accepted invite: answer on the listener's connection, or on a new one for a pushed invite.
    static func accepting(_ invite: CallInvite, options: AcceptOptions, delegate: (any CallDelegate)?) -> Call {
        let token = options.accessToken ?? invite.listener?.accessToken ?? VoiceSettings.shared.withLock { $0.registeredToken }
        let call = Call(uuid: options.uuid, from: invite.from, to: invite.to, sid: invite.callSid, options: options.media,
                        delegate: delegate, accessToken: token)
        Task.detached {
            do throws(ParleyError) {
                let channel: SignalingChannel
                var owns = false
                if let listener = invite.listener, let live = listener.channel {
                    channel = live
                } else {
                    guard let token = options.accessToken ?? VoiceSettings.shared.withLock({ $0.registeredToken }) else {
                        throw ParleyError(.authorization, reason: "a pushed invite needs AcceptOptions.accessToken or Voice.register first")
                    }
                    let edge = options.media.edge ?? invite.edge
                    let server = try VoiceSettings.server(for: edge)
                    channel = try await VoiceSignaling.open(server: server, token: token)
                    owns = true
                }
                try await call.begin(channel: channel, ownsChannel: owns, subscribeKey: invite.callSid) { offer in
                    .accept(Accept(callSid: invite.callSid, sdp: offer))
                }
            } catch {
                call.inputs.yield(.serverError(code: error.code.rawValue, message: error.failureReason ?? error.code.text))
            }
            await call.drive()
        }
        return call
    }

    var callId: String { snapshot.withLock { $0.machine.callId } }

    /// Creates the media, subscribes to the call's messages, sends the offer in `message`.
    private func begin(channel: SignalingChannel, ownsChannel: Bool, subscribeKey: String,
                       message: (String) -> SignalingMessage) async throws(ParleyError) {
        let media: CallMedia
        do { media = try CallMedia(options: options) } catch {
            if ownsChannel { await channel.close() }
            throw error
        }
        let (muted, onHold) = snapshot.withLock { snapshot in
            snapshot.channel = channel
            snapshot.ownsChannel = ownsChannel
            snapshot.media = media
            return (snapshot.isMuted, snapshot.isOnHold)
        }
        media.isMuted = muted
        media.isOnHold = onHold
        let messages = channel.subscribe(subscribeKey)
        let offer: String
        do { offer = try await media.peer.createOffer() } catch {
            throw ParleyError(.mediaClientLocalDescFailed, reason: error.failureReason)
        }
        watchSignaling(messages, channel: channel)
        watchMedia(media)
        channel.send(message(offer), id: subscribeKey)
    }

    private func watchSignaling(_ events: AsyncStream<ChannelEvent>, channel: SignalingChannel) {
        Task.detached { [inputs] in
            for await event in events {
                let message: SignalingMessage
                switch event {
                case .interrupted: inputs.yield(.signalingInterrupted); continue
                case .resumed: inputs.yield(.signalingResumed); continue
                case .message(let received): message = received
                }
                switch message {
                case .callCreated(let created):
                    inputs.yield(.callCreated(sid: created.callSid))
                    self.publish("connection", "outgoing", callSid: created.callSid)
                case .ringing: inputs.yield(.ringing)
                case .answer(let answer): inputs.yield(.answer(sdp: answer.sdp))
                case .connected: inputs.yield(.signalingConnected)
                case .hangup(let hangup): inputs.yield(.hangup(code: hangup.code, reason: hangup.reason))
                case .error(let body): inputs.yield(.serverError(code: body.code, message: body.message))
                case .message(let message): self.received(message)
                case .messageSent(let ack): self.messageAcknowledged(ack.messageId, error: nil)
                case .messageFailed(let failure):
                    self.messageAcknowledged(failure.messageId,
                                             error: ParleyError(ParleyError.Code(rawValue: failure.code), reason: failure.reason))
                default: break
                }
            }
            inputs.yield(.signalingLost)
        }
    }

    private func watchMedia(_ media: CallMedia) {
        Task.detached { [inputs] in
            var wasConnected = false
            for await state in media.peer.states {
                switch state {
                case .connected:
                    inputs.yield(wasConnected ? .mediaRecovered : .mediaConnected)
                    wasConnected = true
                case .disconnected: inputs.yield(.mediaInterrupted)
                case .failed:
                    let failure = await media.peer.statistics().failure
                    inputs.yield(.mediaFailed(failure ?? ParleyError(.mediaConnection, reason: "media connection failed")))
                default: break
                }
            }
        }
    }

    /// Feeds the state machine until the call ends.
    private func drive() async {
        for await input in inputStream {
            let actions = snapshot.withLock { $0.machine.handle(input) }
            Log.debug(.core, "call \(callId): \(input) → \(actions.count) action(s), \(state.rawValue)")
            for action in actions { await perform(action) }
            if snapshot.withLock({ $0.machine.isEnded }) { break }
        }
        inputs.finish()
    }

    private func perform(_ action: CallStateMachine.Action) async {
        let (channel, media) = snapshot.withLock { ($0.channel, $0.media) }
        switch action {
        case .send(let message):
            channel?.send(message)
        case .applyAnswer(let sdp):
            guard let media else { return }
            Task.detached { [inputs] in
                do throws(ParleyError) { try await media.peer.setRemoteAnswer(sdp) } catch {
                    inputs.yield(.mediaFailed(ParleyError(.mediaClientRemoteDescFailed, reason: error.failureReason)))
                }
            }
        case .startAudio:
            guard let media else { return }
            let onDigit: @Sendable (String) -> Void = { [weak self] digit in self?.notify { $0.call($1, didReceiveDigit: digit) } }
            do { try await media.startAudio(device: options.audioDevice ?? Voice.audioDevice, onDigit: onDigit) } catch {
                Log.error(.core, "call \(sid ?? callId): audio did not start: \(error)")
            }
            startSampling()
        case .restartICE:
            guard let media, let channel, let sid else { return }
            do {
                let offer = try await media.peer.restartICE()
                channel.send(.iceRestart(IceRestart(callSid: sid, sdp: offer)))
            } catch {
                Log.warning(.webrtc, "call \(sid): ICE restart failed: \(error)")
            }
        case .startReconnectTimer(let generation, let delay):
            VoiceSettings.clock.schedule(after: delay) { [inputs] in
                inputs.yield(.reconnectTimeout(generation: generation))
            }
        case .reviveSignaling:
            await channel?.reviveConnection()
        case .startRestartTimer(let generation, let delay):
            VoiceSettings.clock.schedule(after: delay) { [inputs] in
                inputs.yield(.restartTimeout(generation: generation))
            }
        case .notify(let notification):
            report(notification)
        case .tearDown:
            await tearDown()
        }
    }

    private func report(_ notification: CallStateMachine.Notification) {
        switch notification {
        case .ringing:
            notify { $0.callDidStartRinging($1) }
        case .reconnecting(let error):
            notify { $0.call($1, isReconnectingWithError: error) }
        case .reconnected:
            notify { $0.callDidReconnect($1) }
        case .connected:
            settle(.success(()))
            notify { $0.callDidConnect($1) }
            if let media = snapshot.withLock({ $0.media }) {
                Task.detached {
                    let codec = await media.peer.statistics().codec?.rawValue.lowercased() ?? "unknown"
                    self.publish("settings", "codec", payload: ["codec": codec])
                }
            }
        case .failedToConnect(let error):
            settle(.failure(error))
            publish("connection", "error", level: .error,
                    payload: ["code": "\(error.code.rawValue)", "message": error.failureReason ?? error.code.text])
            notify { $0.callDidFailToConnect($1, error: error) }
        case .disconnected(let error):
            settle(.failure(error ?? ParleyError(.callCancelled, reason: "the call ended before it connected")))
            notify { $0.callDidDisconnect($1, error: error) }
        }
    }

    private func tearDown() async {
        let (channel, owns, media, sid) = snapshot.withLock { snapshot in
            (snapshot.channel, snapshot.ownsChannel, snapshot.media, snapshot.machine.sid)
        }
        var last: StatsReport?
        if let media { last = await Self.statistics(of: media) }
        snapshot.withLock { snapshot in
            snapshot.media = nil
            snapshot.finalStats = last
        }
        await media?.close()
        if owns {
            // The hangup or cancel was queued on the socket's loop before the close frame, so it
            // leaves first (messages keep their order, RFC 6455 §5.4).
            await channel?.close()
        } else {
            channel?.unsubscribe([callId] + (sid.map { [$0] } ?? []))
        }
        VoiceSettings.shared.withLock { $0.liveCalls -= 1 }
    }
}

extension Call {
    /// One Insights event about this call (nothing when Insights are off or the token is unknown).
    func publish(_ group: String, _ name: String, level: InsightsLevel = .info, callSid: String? = nil,
                 payload: [String: String] = [:]) {
        guard let accessToken else { return }
        VoiceSettings.insights.publish(group: group, name: name, level: level, callSid: callSid ?? sid, payload: payload,
                                       token: accessToken, edge: options.edge)
    }
}
