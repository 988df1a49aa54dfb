import Foundation
import ParleyCore
import ParleyVideo
import Synchronization
import VideoCore

/// Prints a room's life on standard output, one line per event (`+1.234s room: participant bob
/// connected`), records what it subscribes to, and lets a command wait for the room's milestones.
final class RoomConsole: RoomDelegate, RemoteParticipantDelegate, LocalParticipantDelegate, RemoteDataTrackDelegate, Sendable {
    let queue: DispatchQueue
    let recorders: RemoteTrackRecorders
    private let name: String
    private let started: ContinuousClock.Instant
    private let dataMessage: String?
    private struct State {
        var connectedAt: ContinuousClock.Instant?
        var failed = false
        var ended: Int32?
        /// Publisher identity by data track SID, for the lines of received messages.
        var dataPublishers: [String: String] = [:]
    }
    private let state = Mutex(State())

    /// - Parameters:
    ///   - name: the prefix of every line (`room`, or a demo participant's identity).
    ///   - dataMessage: sent on the local data track after connecting, and again for each newcomer.
    ///   - started: the time lines count from.
    init(name: String, recorders: RemoteTrackRecorders, dataMessage: String? = nil, started: ContinuousClock.Instant = .now) {
        self.name = name
        self.started = started
        self.recorders = recorders
        self.dataMessage = dataMessage
        queue = DispatchQueue(label: "parley-cli-room-\(name)")
    }

    func print(_ line: String) {
        let elapsed = (ContinuousClock.now - started).milliseconds / 1000
        FileHandle.standardOutput.write(Data((String(format: "+%.3fs ", elapsed) + "\(name): \(line)\n").utf8))
    }

    private static func describe(_ error: ParleyError) -> String {
        "\(error.code.rawValue) \(error.name): \(error.failureReason ?? error.code.text)"
    }

    private static func describe(_ publication: RemoteTrackPublication) -> String {
        "\(publication.kind.rawValue) track \(publication.trackName) (\(publication.trackSid))"
    }

    /// When roomDidConnect came, nil before.
    var connectedAt: ContinuousClock.Instant? { state.withLock { $0.connectedAt } }

    // MARK: RoomDelegate

    func roomDidConnect(room: Room) {
        state.withLock { $0.connectedAt = .now }
        let me = room.localParticipant
        print("connected to room \(room.name) (\(room.sid ?? "?")) as \(me?.identity ?? "?") (\(me?.sid ?? "?"))")
        me?.delegate = self
        if room.isRecording { print("the room is being recorded") }
        for participant in room.remoteParticipants {
            print("participant \(participant.identity) (\(participant.sid)) is in the room")
            participant.delegate = self
            for publication in participant.trackPublications { print("\(participant.identity) publishes \(Self.describe(publication))") }
        }
        sendData(to: nil, from: room)
    }

    func roomDidFailToConnect(room: Room, error: ParleyError) {
        print("failed to connect: \(Self.describe(error))")
        state.withLock { $0.failed = true; $0.ended = 1 }
    }

    func roomDidDisconnect(room: Room, error: ParleyError?) {
        print(error.map { "disconnected: \(Self.describe($0))" } ?? "disconnected")
        state.withLock { $0.ended = error == nil ? 0 : 1 }
    }

    func roomIsReconnecting(room: Room, error: ParleyError) { print("reconnecting: \(Self.describe(error))") }
    func roomDidReconnect(room: Room) { print("reconnected") }

    func participantDidConnect(room: Room, participant: RemoteParticipant) {
        print("participant \(participant.identity) (\(participant.sid)) connected")
        participant.delegate = self
        sendData(to: participant.identity, from: room)
    }

    func participantDidDisconnect(room: Room, participant: RemoteParticipant) {
        print("participant \(participant.identity) disconnected")
    }

    func participantIsReconnecting(room: Room, participant: RemoteParticipant) { print("participant \(participant.identity) is reconnecting") }
    func participantDidReconnect(room: Room, participant: RemoteParticipant) { print("participant \(participant.identity) reconnected") }
    func roomDidStartRecording(room: Room) { print("recording started") }
    func roomDidStopRecording(room: Room) { print("recording stopped") }

    func dominantSpeakerDidChange(room: Room, participant: RemoteParticipant?) {
        print("dominant speaker: \(participant?.identity ?? "none")")
    }

    // MARK: RemoteParticipantDelegate

    func remoteParticipant(_ participant: RemoteParticipant, didPublish publication: RemoteTrackPublication) {
        print("\(participant.identity) published \(Self.describe(publication))")
    }

    func remoteParticipant(_ participant: RemoteParticipant, didUnpublish publication: RemoteTrackPublication) {
        print("\(participant.identity) unpublished \(Self.describe(publication))")
    }

    func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication) {
        print("subscribed to \(participant.identity)'s \(Self.describe(publication))")
        if let data = publication.remoteDataTrack {
            state.withLock { $0.dataPublishers[data.sid] = participant.identity }
            data.delegate = self
            return
        }
        do {
            let track = "\(participant.identity)'s \(publication.trackName)"
            let path = try recorders.attach(publication, of: participant) { [self] frame in
                print("first frame of \(track): \(frame.width)x\(frame.height)")
            }
            if let path { print("recording \(track) → \(path)") }
        } catch {
            print("cannot record \(participant.identity)'s \(publication.trackName): \(error)")
        }
    }

    func remoteParticipant(_ participant: RemoteParticipant, didFailToSubscribeTo publication: RemoteTrackPublication,
                           error: ParleyError) {
        print("failed to subscribe to \(participant.identity)'s \(Self.describe(publication)): \(Self.describe(error))")
    }

    func remoteParticipant(_ participant: RemoteParticipant, didUnsubscribeFrom publication: RemoteTrackPublication) {
        print("unsubscribed from \(participant.identity)'s \(Self.describe(publication))")
    }

    func remoteParticipant(_ participant: RemoteParticipant, didEnable publication: RemoteTrackPublication) {
        print("\(participant.identity) enabled \(publication.trackName)")
    }

    func remoteParticipant(_ participant: RemoteParticipant, didDisable publication: RemoteTrackPublication) {
        print("\(participant.identity) disabled \(publication.trackName)")
    }

    func remoteParticipant(_ participant: RemoteParticipant, didSwitchOff publication: RemoteTrackPublication) {
        print("\(participant.identity)'s \(publication.trackName) switched off by the server")
    }

    func remoteParticipant(_ participant: RemoteParticipant, didSwitchOn publication: RemoteTrackPublication) {
        print("\(participant.identity)'s \(publication.trackName) switched on")
    }

    func remoteParticipant(_ participant: RemoteParticipant, networkQualityLevelDidChange level: NetworkQualityLevel) {
        print("network quality of \(participant.identity): \(level == .unknown ? "unknown" : String(level.rawValue))")
    }

    // MARK: LocalParticipantDelegate

    func localParticipant(_ participant: LocalParticipant, didPublishTrackNamed trackName: String, trackSid: String) {
        print("published \(trackName) (\(trackSid))")
    }

    func localParticipant(_ participant: LocalParticipant, didFailToPublishTrackNamed trackName: String, error: ParleyError) {
        print("failed to publish \(trackName): \(Self.describe(error))")
    }

    func localParticipant(_ participant: LocalParticipant, networkQualityLevelDidChange level: NetworkQualityLevel) {
        print("network quality (this participant): \(level == .unknown ? "unknown" : String(level.rawValue))")
    }

    // MARK: RemoteDataTrackDelegate

    func remoteDataTrack(_ track: RemoteDataTrack, didReceiveString message: String) {
        let from = state.withLock { $0.dataPublishers[track.sid] } ?? "?"
        print("data from \(from)'s \(track.name): \(message)")
    }

    func remoteDataTrack(_ track: RemoteDataTrack, didReceiveData message: Data) {
        let from = state.withLock { $0.dataPublishers[track.sid] } ?? "?"
        print("data from \(from)'s \(track.name): \(message.count) bytes")
    }

    // MARK: Sending and waiting

    /// `--send-data`: to everyone a second after connecting, and again a second after each
    /// newcomer (`identity`) connected: the server forwards a message only to those subscribed
    /// by then, and subscribing to a new track takes a moment.
    private func sendData(to identity: String?, from room: Room) {
        guard let message = dataMessage, let track = room.localParticipant?.dataTracks.first else { return }
        let send: @Sendable () -> Void = { [self] in
            track.send(message)
            print("sent data\(identity.map { " (for \($0))" } ?? ""): \(message)")
        }
        queue.asyncAfter(deadline: .now() + 1, execute: send)
    }

    /// Waits until the room connects or fails, a signal arrives, or `deadline` passes.
    func waitForConnect(until deadline: ContinuousClock.Instant) async -> ConnectOutcome {
        while true {
            let (connected, failed) = state.withLock { ($0.connectedAt != nil, $0.failed || $0.ended != nil) }
            if connected { return .connected }
            if failed { return .failed }
            if let signal = Interruption.shared.caughtSignal { return .interrupted(signal) }
            if ContinuousClock.now >= deadline { return .timedOut }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stays in the room until it ends, a signal arrives, or `deadline` passes (nil: no deadline).
    func hold(until deadline: ContinuousClock.Instant?, every interval: Duration? = nil, tick: () -> Void = {}) async -> HoldOutcome {
        var nextTick = interval.map { ContinuousClock.now + $0 }
        while true {
            if state.withLock({ $0.ended != nil }) { return .ended }
            if let signal = Interruption.shared.caughtSignal { return .interrupted(signal) }
            if let deadline, ContinuousClock.now >= deadline { return .elapsed }
            if let due = nextTick, let interval, ContinuousClock.now >= due {
                tick()
                nextTick = due + interval
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The exit status once the room ended (0 normal, 1 with an error), waiting up to `timeout`.
    func waitForEnd(timeout: Duration = .seconds(5)) async -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let ended = state.withLock({ $0.ended }) { return ended }
            try? await Task.sleep(for: .milliseconds(10))
        }
        print("no roomDidDisconnect within \(timeout)")
        return 1
    }
}
