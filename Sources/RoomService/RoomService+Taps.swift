import PlatformCore
import ServerMedia
import Synchronization

/// Who reads a published section's packets off the media loop.
enum SectionTapConsumer: Hashable, Sendable {
    /// The track's recording.
    case recording
    /// The room's mixed audio (WHEP viewers).
    case mix
}

/// The one media-plane tap of a published section, shared by its consumers: the media plane
/// keeps one tap per section, the service hands each packet to every consumer that wants it.
final class SectionTap: Sendable {
    private struct State {
        var consumers: [(SectionTapConsumer, @Sendable (TappedRTPPacket) -> Void)] = []
        var codec: String?
    }

    private let state = Mutex(State())

    /// Hands `packet` to every consumer (in the tap's task; consumers only queue it).
    func deliver(_ packet: TappedRTPPacket) {
        state.withLock { s in
            for (_, handler) in s.consumers { handler(packet) }
        }
    }

    func set(_ consumer: SectionTapConsumer, _ handler: @escaping @Sendable (TappedRTPPacket) -> Void) {
        state.withLock { s in
            s.consumers.removeAll { $0.0 == consumer }
            s.consumers.append((consumer, handler))
        }
    }

    /// Removes `consumer`; true when none is left.
    func remove(_ consumer: SectionTapConsumer) -> Bool {
        state.withLock { s in
            s.consumers.removeAll { $0.0 == consumer }
            return s.consumers.isEmpty
        }
    }

    /// The section's codec as the media plane reported it when the tap was set.
    var codec: String? {
        get { state.withLock { $0.codec } }
        set { state.withLock { $0.codec = newValue } }
    }
}

extension RoomService {
    /// Gives `consumer` every packet the participant sends in `section`. The first consumer sets
    /// the media plane's tap; a later one asks a video publisher for a key frame (a recording
    /// starts with one). `installed` gets the section's codec (nil when no live session sends in
    /// it), in the order of the media work.
    func attachTap(_ section: RoomTrackAddress, _ consumer: SectionTapConsumer,
                   _ handler: @escaping @Sendable (TappedRTPPacket) -> Void,
                   installed: @escaping @Sendable (String?) async -> Void = { _ in }) {
        guard let media else { return }
        if let tap = sectionTaps[section] {
            tap.set(consumer, handler)
            mediaWork.post {
                let codec = tap.codec
                if consumer == .recording, codec?.lowercased() == "vp8" { await media.requestKeyframe(section, ssrc: nil) }
                await installed(codec)
            }
            return
        }
        let tap = SectionTap()
        tap.set(consumer, handler)
        sectionTaps[section] = tap
        mediaWork.post {
            let codec = await media.tap(section) { tap.deliver($0) }
            tap.codec = codec
            await installed(codec)
        }
    }

    /// Stops giving `consumer` the packets of `section`; the last one removes the media plane's
    /// tap. `then` runs after that, in the order of the media work.
    func detachTap(_ section: RoomTrackAddress, _ consumer: SectionTapConsumer,
                   then: @escaping @Sendable () async -> Void = {}) {
        guard let media else { return }
        guard let tap = sectionTaps[section], tap.remove(consumer) else {
            mediaWork.post { await then() }
            return
        }
        sectionTaps[section] = nil
        mediaWork.post {
            _ = await media.tap(section, nil)
            await then()
        }
    }
}
