import ParleyCore
import ParleyRTP
import ServerMedia
import WebRTC

/// A `CallMediaBridge` whose legs forward to and from legs of another bridge on another event loop
/// without decoding: the source leg pushes what it receives into an `RTPPacketHandoff` (bounded,
/// allocated once), the sink's loop drains it onto the sink's own stream. `CompositeMediaBridge`
/// links legs of the same codec with it (`HandoffLink`).
package protocol HandoffMediaBridge: CallMediaBridge {
    /// The media server whose legs (by `MediaLegID.rawValue`) take part.
    var handoffServer: any RTPHandoffServer { get }
}

extension WebRTCMediaBridge: HandoffMediaBridge {
    package var handoffServer: any RTPHandoffServer { media }
}

/// One direction forwarded across transports: `source`'s packets into `sink`'s stream.
struct HandoffLink {
    let source: MediaLegID
    let sink: MediaLegID
    let handoff: RTPPacketHandoff
    let sourceServer: any RTPHandoffServer
    let sinkServer: any RTPHandoffServer

    /// Links the two legs; nil when either is gone.
    static func open(from source: MediaLegID, of sourceBridge: any HandoffMediaBridge, to sink: MediaLegID,
                     of sinkBridge: any HandoffMediaBridge, codec: CallAudioCodec) async -> HandoffLink? {
        let (from, to) = (sourceBridge.handoffServer, sinkBridge.handoffServer)
        // G.711 frames are 8 bytes a millisecond: 60 ms fits in 480; an Opus frame in 1,275 (RFC 6716 §3.2.1).
        guard let handoff = await to.openHandoff(to: sink.rawValue, capacity: 32, maxPayloadBytes: codec == .opus ? 1280 : 480) else {
            return nil
        }
        guard await from.changeHandoff(.push, handoff, leg: source.rawValue) else {
            handoff.close()
            _ = await to.changeHandoff(.unfeed, handoff, leg: sink.rawValue)
            return nil
        }
        return HandoffLink(source: source, sink: sink, handoff: handoff, sourceServer: from, sinkServer: to)
    }

    /// Unlinks: the source stops pushing, then the sink stops sending (what still waits is dropped).
    func close() async {
        _ = await sourceServer.changeHandoff(.stopPushing, handoff, leg: source.rawValue)
        handoff.close()
        _ = await sinkServer.changeHandoff(.unfeed, handoff, leg: sink.rawValue)
    }

    func involves(_ id: MediaLegID) -> Bool { source == id || sink == id }
}
