import BandwidthEstimation
import RTP

/// Every transceiver of one client connection and what the packet path needs to find them: a
/// table from received SSRC to transceiver (RFC 8843 §9.2: SSRC first, then the mid element),
/// and the section order of our descriptions.
struct ClientTransceivers {
    /// A section of our offer, in m-line order.
    enum Section: Hashable {
        case transceiver(Int)
        case application
    }

    var list: [ClientTransceiver] = []
    /// Fixed by the first offer and only appended to afterwards.
    var sections: [Section] = []
    /// The data channel section's mid, once offered.
    var applicationMid: String?
    var nextMid = 0
    /// Received SSRC → (transceiver, is its RTX stream); at most `maxBoundSSRCs` entries.
    var bySSRC: [UInt32: (transceiver: Int, rtx: Bool)] = [:]
    /// Our SSRC → (transceiver, layer), for the peer's feedback.
    var byLocalSSRC: [UInt32: (transceiver: Int, layer: Int)] = [:]
    /// Transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2),
    /// one counter over every stream of the transport.
    var transportSequence: UInt16 = 0
    /// An offer of ours waits for its answer (first offer and re-offers alike).
    var offerPending = false
    var sink: AsyncStream<TransceiverEvent>.Continuation?
    /// Packets that named no transceiver (unknown SSRC and no usable mid), dropped.
    var unroutable = 0
    /// The mid element's id (RFC 8843 §15.1), the same in every section we offer: what binds a
    /// received SSRC no `a=ssrc` announced.
    var midExtensionID: UInt8?
    /// The delay-based estimate of what we receive, sent back in REMB (`PeerConnectionCore+Estimate.swift`).
    var bandwidth = RemoteBitrateEstimator()

    static let maxBoundSSRCs = 512
    /// More sections than a room ever asks for (64 tracks, 64 slots of each kind, docs/signaling.md §12).
    static let maxTransceivers = 256

    var isActive: Bool { !list.isEmpty }

    /// Gives every transceiver not offered yet its section at the end, in the order added, and
    /// the data channel section its place the first time it is offered.
    mutating func placeNewSections(dataChannel: Bool) {
        for index in list.indices where list[index].section == nil {
            list[index].section = sections.count
            sections.append(.transceiver(index))
        }
        if dataChannel, applicationMid == nil {
            applicationMid = String(nextMid)
            nextMid += 1
            sections.append(.application)
        }
    }

    /// The next free mid: mids are small integers, as browsers give them.
    mutating func takeMid() -> String {
        defer { nextMid += 1 }
        return String(nextMid)
    }

    /// The transceiver of a received SSRC, binding an unknown one by its mid element.
    mutating func bind(ssrc: UInt32, mid: UnsafeRawBufferPointer?) -> (transceiver: Int, rtx: Bool)? {
        if let known = bySSRC[ssrc] { return known }
        guard let mid, bySSRC.count < Self.maxBoundSSRCs else { return nil }
        guard let index = list.firstIndex(where: { $0.handle.direction.receives && !$0.isStopped
            && SDESIdentifierElement.matches(mid, $0.handle.midBytes) }) else { return nil }
        if list[index].remoteSSRC == nil { list[index].remoteSSRC = ssrc }
        bySSRC[ssrc] = (index, false)
        return (index, false)
    }
}
