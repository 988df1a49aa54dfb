import ParleyNet
import ParleyRTP
import RTCP
import RTP
import SFU
import VP8

extension RoomInbound {
    /// Makes the section a simulcast one: its layers, and a NACK requester and key frame
    /// throttle per layer.
    mutating func startSimulcast(_ offered: OfferedSimulcast) {
        simulcast = offered
        layers = SimulcastLayers(rids: offered.rids)
        midBytes = Array(mid.utf8)
        let count = layers?.layers.count ?? 0
        layerKeyframeRequests = Array(repeating: -.infinity, count: count)
        packets = (0..<count).map { _ in RoomInbound.makePacketCache() }
        if nacks != nil {
            layerNACKs = Array(repeating: RTPNACKRequester(), count: count)
            nacks = nil
        }
    }
}

/// What a receive slot does with one packet of a simulcast layer (`PeerSession.admitLayer`).
enum LayerAdmission {
    /// The slot's layer: it goes out.
    case forward
    /// Another layer: not for this slot.
    case skip
    /// The layer the slot switches to, but not at a key frame yet: ask for one.
    case awaitKeyFrame
}

/// Simulcast in room sessions (RFC 8853): a publisher's layers are told apart by the SSRC their
/// first packets bound with their mid and rid elements (RFC 8852 §3). Each receive slot forwards
/// one layer and switches at a key frame of the next one, so its receiver sees one stream
/// (`RTPForwardingTrack` renumbers, `VP8PictureIDMunger` continues the picture IDs); which layer
/// is its subscriber's allocation (`PeerSession+Allocation`), made once per housekeeping tick.
extension PeerSession {
    /// Binds an unknown SSRC to a simulcast section's layer by its mid and rid elements; the
    /// section's index, or nil when no layer claims it. A layer's new SSRC replaces its old one.
    func bindSimulcastStream(_ view: RTPPacketView) -> Int? {
        var index = 0
        while index < roomInbound.count {
            defer { index += 1 }
            guard let simulcast = roomInbound[index].simulcast,
                  let mid = view.extensionElement(id: simulcast.midExtensionID),
                  SDESIdentifierElement.matches(mid, roomInbound[index].midBytes),
                  let rid = view.extensionElement(id: simulcast.streamIDExtensionID),
                  let layer = roomInbound[index].layers?.layer(rid: rid) else { continue }
            if let old = roomInbound[index].layers?.layers[layer].ssrc { roomInbound[index].ssrcs.removeAll { $0 == old } }
            guard roomInbound[index].ssrcs.count < RoomInbound.maxSSRCs else { return nil }
            roomInbound[index].layers?.bind(layer: layer, ssrc: view.ssrc)
            roomInbound[index].ssrcs.append(view.ssrc)
            return index
        }
        return nil
    }

    /// A packet of a published section: its layer (nil when the section is no simulcast one),
    /// whose bitrate and key frame size it updates.
    func noteLayerPacket(_ view: RTPPacketView, vp8: VP8PayloadDescriptor.Fields?, inbound: Int, now: Double) -> Int? {
        guard roomInbound[inbound].layers != nil, let layer = roomInbound[inbound].layers?.layer(ssrc: view.ssrc) else {
            return nil
        }
        roomInbound[inbound].layers?.received(layer: layer, bytes: view.payload.count, now: now)
        if let vp8, vp8.startsKeyFrame,
           let size = VP8FrameHeader.keyFrameSize(in: UnsafeRawBufferPointer(rebasing: view.payload[vp8.length...])) {
            roomInbound[inbound].layers?.keyFrame(layer: layer, width: size.width, height: size.height)
        }
        return layer
    }

    /// Whether a packet of `layer` goes out on slot `track`. The target layer's key frame makes it
    /// the slot's layer: the stream resynchronises there (RFC 7667 §3.7), counted as a switch.
    func admitLayer(_ layer: Int, track: Int, startsKeyFrame: Bool) -> LayerAdmission {
        guard slotVideo.indices.contains(track), let video = slotVideo[track] else { return .skip }
        if video.targetLayer == layer, video.layer != layer {
            guard startsKeyFrame else { return .awaitKeyFrame }
            if video.layer != nil { counters.layerSwitches += 1 }
            slotVideo[track]?.layer = layer
            slotVideo[track]?.awaitingKeyFrame = false
            slotVideo[track]?.pictures.sourceChanged()
            tracks[track].sourceChanged()
            return .forward
        }
        return video.layer == layer ? .forward : .skip
    }

    /// Notes that `view` arrived on `requester`'s stream and sends what is due (video playout budget).
    func sendNACKs(_ requester: inout RTPNACKRequester, received view: RTPPacketView, now: Double, out: inout [Datagram]) {
        requester.received(view.sequenceNumber, now: now)
        sendNACKs(&requester, mediaSSRC: view.ssrc, from: nil, playoutBudget: Self.videoNACKPlayoutBudget, now: now, out: &out)
    }
}
