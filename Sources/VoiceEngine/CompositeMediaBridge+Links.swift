import ParleyCore
import PlatformCore
import ParleyRTP
import ServerMedia
import Synchronization

/// Forwarding across transports (a WebRTC leg and a SIP leg of the same codec) and the bridge's
/// lines in `/metrics`.
extension CompositeMediaBridge {
    func hasLink(from source: MediaLegID, to sink: MediaLegID) -> Bool {
        state.withLock { $0.links.contains { $0.source == source && $0.sink == sink } }
    }

    /// Links `source` → `sink` through a hand-off when both bridges can; false otherwise (the
    /// caller transcodes).
    func link(from source: MediaLegID, to sink: MediaLegID, codec: CallAudioCodec) async -> Bool {
        guard let from = owner(of: source) as? any HandoffMediaBridge, let to = owner(of: sink) as? any HandoffMediaBridge else {
            return false
        }
        // A sink has one source: what fed it before stops.
        await stopForwarding(to: sink)
        guard let link = await HandoffLink.open(from: source, of: from, to: sink, of: to, codec: codec) else { return false }
        state.withLock {
            $0.links.append(link)
            $0.linksMade += 1
        }
        Log.info(.platform, "media \(source) → \(sink) (\(codec.rawValue)) forwarded across transports")
        return true
    }

    /// Closes the links `matching` says.
    func unlink(_ matching: (HandoffLink) -> Bool) async {
        let closing = state.withLock { s -> [HandoffLink] in
            let closing = s.links.filter(matching)
            s.links.removeAll(where: matching)
            return closing
        }
        for link in closing {
            await link.close()
            state.withLock {
                $0.closedHandedOver += link.handoff.pushed
                $0.closedDropped += link.handoff.dropped
            }
        }
    }

    /// Relays and links now and ever, and packets handed across transports (pushed by the
    /// source's loop; dropped when a ring was full or a payload too large).
    package var figures: [MetricFigure] {
        state.withLock { s in
            [("parley_media_transcoding_relays", "gauge", s.relays.count),
             ("parley_media_transcoding_relays_total", "counter", s.relaysMade),
             ("parley_media_cross_transport_forwards", "gauge", s.links.count),
             ("parley_media_cross_transport_forwards_total", "counter", s.linksMade),
             ("parley_media_cross_transport_forwarded_packets_total", "counter",
              s.closedHandedOver + s.links.reduce(0) { $0 + $1.handoff.pushed }),
             ("parley_media_cross_transport_dropped_total", "counter",
              s.closedDropped + s.links.reduce(0) { $0 + $1.handoff.dropped })]
        }
    }
}
