import ParleyCore
import ParleyOpus
import ParleyStore
import ServerMedia
import Synchronization

/// One room's mixed audio, made while someone hears it: every published audio track is tapped,
/// decoded and summed every 20 ms by a `ConferenceMixer` (the conference rooms' mixer), and the
/// total is encoded once per codec and sent in each listener's reserved audio slot.
struct RoomAudioMix {
    let mixer: ConferenceMixer
    let sink: RoomMixSink
    /// Listeners: participant SID → the slot the mix goes to.
    var listeners: [String: RoomTrackAddress] = [:]
    /// Inputs: published track SID → its section (tapped, and in the mixer once the tap said its
    /// codec) and where its packets wait for the mixer.
    var inputs: [String: (section: RoomTrackAddress, input: ConferenceInput)] = [:]
}

/// Where the mixer's frames go: the listener slot its party key names.
final class RoomMixSink: MediaFrameSink {
    private let media: any RoomMediaPlane
    private let slots = Mutex<[String: RoomTrackAddress]>([:])

    init(media: any RoomMediaPlane) { self.media = media }

    func play(_ payload: [UInt8], samples: Int, to party: String) {
        guard let slot = slots.withLock({ $0[party] }) else { return }
        media.play(payload, samples: samples, to: slot)
    }

    func set(_ party: String, _ slot: RoomTrackAddress?) { slots.withLock { $0[party] = slot } }

    /// The mixer's key for a listener's slot and for a published section.
    static func listenerKey(_ slot: RoomTrackAddress) -> String { "listener \(slot.session) \(slot.mid)" }
    static func inputKey(_ section: RoomTrackAddress) -> String { "input \(section.session) \(section.mid)" }
}

extension RoomService {
    /// Whether this node mixes rooms' audio (it has a media plane and a mix clock).
    public nonisolated var mixesAudio: Bool { media != nil && configuration.mixClock != nil }

    /// Sends the room's mixed audio in the participant's first free audio receive slot, from now
    /// until it leaves: every audio track published in the room (its own too, if it publishes
    /// one), decoded and summed, encoded once for all listeners. Subscriptions never take that
    /// slot. False when this node mixes nothing, the participant may not subscribe, or it has no
    /// free audio slot.
    @discardableResult
    public func hearRoomMix(participantSid: String) -> Bool {
        guard mixesAudio, let media, let live = participants[participantSid], live.permissions.canSubscribe,
              var session = live.session, let slot = session.takeMixSlot() else { return false }
        let codec = CallAudioCodec(rawValue: (slot.codec ?? "opus").lowercased()) ?? .opus
        participants[participantSid]?.session = session
        let roomSid = live.record.roomSid
        var mix = mixes[roomSid] ?? makeMix(media: media)
        let address = RoomTrackAddress(session: session.id, mid: slot.mid)
        let key = RoomMixSink.listenerKey(address)
        do {
            // Muted: it hears exactly the total, one encoding shared by every listener of its codec.
            try mix.mixer.add(session: key, codec: codec, input: ConferenceInput(), muted: true, active: true)
        } catch {
            Log.warning(.platform, "room \(roomSid): participant \(participantSid) cannot hear the mix: \(error)")
            mixes[roomSid] = mix
            reconcileMix(roomSid: roomSid)
            return false
        }
        mix.sink.set(key, address)
        mix.listeners[participantSid] = address
        mixes[roomSid] = mix
        Log.info(.platform, "room \(roomSid): participant \(participantSid) hears the room's mix (\(codec.rawValue))")
        reconcileMix(roomSid: roomSid)
        return true
    }

    /// The mix is encoded once per room for all its listeners, so it gets Opus's best effort:
    /// it is a second encoding of what the publishers sent.
    static let mixEncoding = CallMediaPlayer.Configuration(opusBitrate: 64_000, opusComplexity: 10, opusApplication: .audio)

    private func makeMix(media: any RoomMediaPlane) -> RoomAudioMix {
        let sink = RoomMixSink(media: media)
        let mix = RoomAudioMix(mixer: ConferenceMixer(sink: sink, configuration: Self.mixEncoding), sink: sink)
        configuration.mixClock?.add(mix.mixer)
        return mix
    }

    /// Brings a room's mix in line with the room: listeners that left are dropped (the last one
    /// ends the mix), published audio tracks are tapped into it and unpublished ones taken out.
    func reconcileMix(roomSid: String) {
        guard var mix = mixes[roomSid] else { return }
        for (sid, slot) in mix.listeners where participants[sid]?.session?.id != slot.session {
            mix.listeners[sid] = nil
            mix.mixer.remove(session: RoomMixSink.listenerKey(slot))
            mix.sink.set(RoomMixSink.listenerKey(slot), nil)
        }
        var wanted: [String: RoomTrackAddress] = [:]
        if !mix.listeners.isEmpty {
            for track in tracks.values where track.record.roomSid == roomSid && track.record.kind == .audio {
                guard let mid = track.mid, let session = participants[track.record.participantSid]?.session else { continue }
                wanted[track.record.sid] = RoomTrackAddress(session: session.id, mid: mid)
            }
        }
        for (sid, (section, input)) in mix.inputs where wanted[sid] != section {
            mix.inputs[sid] = nil
            mix.mixer.remove(session: RoomMixSink.inputKey(section))
            detachTap(section, .mix)
            let counts = input.counts
            Log.debug(.platform, "room \(roomSid): track \(sid) left the mix (\(counts.received) packets, \(counts.dropped) dropped)")
        }
        for (sid, section) in wanted where mix.inputs[sid] == nil {
            let input = ConferenceInput()
            mix.inputs[sid] = (section, input)
            attachTap(section, .mix, { input.receive($0.payload, sequenceNumber: $0.sequenceNumber) }) { [weak self] codec in
                await self?.mixInputTapped(roomSid: roomSid, trackSid: sid, section: section, input: input, codec: codec)
            }
        }
        guard mix.listeners.isEmpty else {
            mixes[roomSid] = mix
            return
        }
        configuration.mixClock?.remove(mix.mixer)
        mixes[roomSid] = nil
        Log.debug(.platform, "room \(roomSid): nobody hears the mix; it ended")
    }

    /// A published section's tap is set: it joins the mix in the codec it is sent in.
    private func mixInputTapped(roomSid: String, trackSid: String, section: RoomTrackAddress, input: ConferenceInput,
                                codec: String?) {
        guard let mix = mixes[roomSid], mix.inputs[trackSid]?.section == section else { return }  // gone meanwhile
        guard let codec = codec.flatMap({ CallAudioCodec(rawValue: $0.lowercased()) }) else {
            Log.info(.platform, "room \(roomSid): track \(trackSid) (\(codec ?? "no codec")) is not mixed")
            return
        }
        do {
            try mix.mixer.add(session: RoomMixSink.inputKey(section), codec: codec, input: input, muted: false, active: true,
                              hears: false)
        } catch {
            Log.warning(.platform, "room \(roomSid): track \(trackSid) cannot join the mix: \(error)")
        }
    }
}
