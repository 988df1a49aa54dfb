import ParleyCore
import Synchronization

/// The audio of one conference room, mixed on the server every 20 ms (ticked by the media
/// player, on the shared media clock).
///
/// Each tick:
/// 1. every active, unmuted participant's next packet is decoded once (Opus at 48 kHz, G.711
///    upsampled to 48 kHz; losses concealed for up to 100 ms) and added to the room's total, in
///    32 bits; room sounds (join and leave beeps) are added too;
/// 2. each unmuted participant hears the total minus its own contribution (the N−1 mix), clipped
///    to 16 bits and encoded with its own encoder in its own codec;
/// 3. muted participants hear exactly the total: it is encoded once per codec and the same
///    payload sent to each of them.
///
/// Buffers, decoders and encoders are made when a participant joins; a tick allocates nothing but
/// the payload arrays handed to the sink (which the transport's API takes as arrays).
package final class ConferenceMixer: MediaClockTarget {
    /// What the mixer has done, for measuring its cost.
    package struct Statistics: Sendable, Equatable {
        package var ticks = 0
        /// Participant-frames mixed (one per active participant per tick).
        var participantFrames = 0
        var framesEncoded = 0
        var cpuNanoseconds: UInt64 = 0
        var maximumTickCPUNanoseconds: UInt64 = 0

        /// CPU per participant per 20 ms frame, in microseconds (decode, mix, encode).
        var cpuMicrosecondsPerParticipantFrame: Double {
            participantFrames > 0 ? Double(cpuNanoseconds) / Double(participantFrames) / 1_000 : 0
        }
    }

    private let sink: any MediaFrameSink
    private let configuration: CallMediaPlayer.Configuration
    private let state: Mutex<State>
    private let stats = Mutex(Statistics())

    private struct State {
        var parties: [ConferenceParty] = []
        /// Sounds played to the whole room (beeps), mixed into everyone's audio.
        var roomSounds: [any AudioSource] = []
        /// One encoder per codec for the participants that hear exactly the total (muted ones).
        var sharedEncoders: [FrameEncoder?] = Array(repeating: nil, count: CallAudioCodec.allCases.count)
        var sharedPayloads: [[UInt8]?] = Array(repeating: nil, count: CallAudioCodec.allCases.count)
        var total = [Int32](repeating: 0, count: MediaAudio.frameSamples)
        var scratch = [Int16](repeating: 0, count: MediaAudio.frameSamples)
    }

    package init(sink: any MediaFrameSink, configuration: CallMediaPlayer.Configuration = CallMediaPlayer.Configuration()) {
        self.sink = sink
        self.configuration = configuration
        state = Mutex(State())
    }

    /// Adds `session` to the room from the next tick. `input` is where its tap stores packets.
    /// An inactive participant neither hears nor is heard until `setActive`; one that does not
    /// `hear` is only mixed in (a video room's publisher, whose listeners are other parties).
    package func add(session: String, codec: CallAudioCodec, input: ConferenceInput, muted: Bool, active: Bool,
                     hears: Bool = true) throws(MediaError) {
        let configuration = self.configuration
        // Made under the lock: the codecs are not Sendable, so they are born where they live.
        let made: Result<Void, MediaError> = state.withLock { s in
            do throws(MediaError) {
                let party = try ConferenceParty(session: session, codec: codec, input: input, muted: muted, active: active,
                                                hears: hears, configuration: configuration)
                let index = Self.index(of: codec)
                if s.sharedEncoders[index] == nil {
                    s.sharedEncoders[index] = try Self.encoder(codec, configuration)
                }
                s.parties.removeAll { $0.session == session }
                s.parties.append(party)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try made.get()
    }

    private static func encoder(_ codec: CallAudioCodec, _ configuration: CallMediaPlayer.Configuration) throws(MediaError) -> FrameEncoder {
        do {
            return try FrameEncoder(codec: codec, configuration: configuration)
        } catch {
            throw MediaError(.internalFailure, "\(codec.rawValue) encoder: \(error)")
        }
    }

    /// Removes `session`; nothing more is sent to it after this returns.
    package func remove(session: String) {
        state.withLock { s in s.parties.removeAll { $0.session == session } }
    }

    /// Puts `session` into the mix (the conference started) or takes it out.
    package func setActive(session: String, _ active: Bool) {
        state.withLock { s in
            for party in s.parties where party.session == session { party.isActive = active }
        }
    }

    package func setMuted(session: String, _ muted: Bool) {
        state.withLock { s in
            for party in s.parties where party.session == session { party.isMuted = muted }
        }
    }

    /// Plays `sound` to everyone in the room (mixed into every participant's audio) until it ends.
    package func play(_ sound: some AudioSource) {
        state.withLock { $0.roomSounds.append(sound) }
    }

    var participantCount: Int { state.withLock { $0.parties.count } }

    var statistics: Statistics { stats.withLock { $0 } }

    /// One 20 ms step: decode, mix, encode, send.
    package func tick() {
        let started = MediaClock.threadCPUNanoseconds()
        let (mixed, encoded) = state.withLock { s in mix(&s) }
        let used = MediaClock.threadCPUNanoseconds() &- started
        stats.withLock { st in
            st.ticks += 1
            st.participantFrames += mixed
            st.framesEncoded += encoded
            st.cpuNanoseconds &+= used
            st.maximumTickCPUNanoseconds = max(st.maximumTickCPUNanoseconds, used)
        }
    }

    /// Returns the participants mixed and the frames encoded. (Index loops: a `for in` over an
    /// array allocates its iterator's coroutine frame in unoptimized builds.)
    private func mix(_ s: inout State) -> (Int, Int) {
        let frame = MediaAudio.frameSamples
        var active = 0
        s.total.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        var index = 0
        while index < s.parties.count {
            let party = s.parties[index]
            index += 1
            guard party.isActive, !party.isMuted else {
                // Not heard: nothing to decode, and nothing stale left for later.
                party.discardInput()
                if party.isActive { active += 1 }
                continue
            }
            active += 1
            guard party.pull() else { continue }
            party.pcm.withUnsafeBufferPointer { own in
                s.total.withUnsafeMutableBufferPointer { total in
                    for n in 0..<frame { total[n] &+= Int32(own[n]) }
                }
            }
        }
        addRoomSounds(&s)
        for i in s.sharedPayloads.indices { s.sharedPayloads[i] = nil }
        var encoded = 0
        index = 0
        while index < s.parties.count {
            let party = s.parties[index]
            index += 1
            guard party.isActive, let encoder = party.encoder else { continue }
            let payload: [UInt8]?
            if party.isMuted {
                payload = sharedPayload(for: party.codec, &s, encoded: &encoded)
            } else {
                fill(&s.scratch, from: s.total, minus: party.hasAudio ? party.pcm : nil)
                payload = s.scratch.withUnsafeBufferPointer { try? encoder.encode($0) }
                encoded += 1
            }
            if let payload { sink.play(payload, samples: party.codec.samplesPerFrame, to: party.session) }
        }
        return (active, encoded)
    }

    /// The total encoded once for `codec`, for every participant that hears exactly it.
    private func sharedPayload(for codec: CallAudioCodec, _ s: inout State, encoded: inout Int) -> [UInt8]? {
        let index = Self.index(of: codec)
        if let ready = s.sharedPayloads[index] { return ready }
        guard let encoder = s.sharedEncoders[index] else { return nil }
        fill(&s.scratch, from: s.total, minus: nil)
        let payload = s.scratch.withUnsafeBufferPointer { try? encoder.encode($0) }
        encoded += 1
        s.sharedPayloads[index] = payload
        return payload
    }

    /// Mixes the room's sounds into the total and forgets those that ended.
    private func addRoomSounds(_ s: inout State) {
        var index = 0
        while index < s.roomSounds.count {
            let count = s.scratch.withUnsafeMutableBufferPointer { s.roomSounds[index].readSamples(into: $0) }
            s.scratch.withUnsafeBufferPointer { sound in
                s.total.withUnsafeMutableBufferPointer { total in
                    for n in 0..<count { total[n] &+= Int32(sound[n]) }
                }
            }
            if count < MediaAudio.frameSamples {
                s.roomSounds.remove(at: index)
            } else {
                index += 1
            }
        }
    }

    /// `output` = `total` − `own`, clipped to 16 bits (saturating, never wrapping).
    private func fill(_ output: inout [Int16], from total: [Int32], minus own: [Int16]?) {
        total.withUnsafeBufferPointer { total in
            output.withUnsafeMutableBufferPointer { out in
                if let own {
                    own.withUnsafeBufferPointer { own in
                        for n in 0..<out.count { out[n] = Int16(clamping: total[n] - Int32(own[n])) }
                    }
                } else {
                    for n in 0..<out.count { out[n] = Int16(clamping: total[n]) }
                }
            }
        }
    }

    private static func index(of codec: CallAudioCodec) -> Int {
        switch codec {
        case .opus: 0
        case .pcmu: 1
        case .pcma: 2
        }
    }
}
