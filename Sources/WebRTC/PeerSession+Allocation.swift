import ParleyCore
import ParleyNet
import ParleyRTP
import RTCP
import SFU

/// A subscriber session's video downlink: its budget (`SubscriberBudget`) from its receiver's
/// loss reports and estimates, its bandwidth profile, and the allocator that shares the budget
/// among its video slots each housekeeping tick. Scratch arrays keep their storage.
struct SubscriberDownlink {
    var budget = SubscriberBudget()
    var profile = BandwidthProfile()
    var allocator = VideoAllocator()
    var demands: [VideoDemand] = []
    /// Per demand: its slot (our track index); per entry of the allocator's arrays: the source
    /// layer it stands for (nil for a source without simulcast).
    var demandTracks: [Int] = []
    var layerOfEntry: [Int?] = []
    var ranks: [Int] = []
    /// Video bits/s the current allocation forwards, and what the subscriptions would take at
    /// their largest live layers (for the network quality level's bandwidth part).
    var forwarding = 0
    var wanted = 0
    /// While a probe sends padding: the slot whose retransmission stream carries it, the bytes
    /// owed, and when padding was last sent (`PeerSession+Probe`).
    var paddingTrack: Int?
    var paddingCredit = 0.0
    var lastPaddingAt = 0.0
    /// The LSR (compact NTP, RFC 3550 §6.4.1) of the sender report sent as the probe's cluster
    /// ended: the report block that carries it measured the round trip through the probed queue.
    var probeReport: UInt32?
}

/// Per-subscriber allocation (issue 16 §2, simulcast and bandwidth profiles): every video slot
/// with a live source is a demand — a simulcast source's live layers, or one layer for a source
/// without simulcast — with the slot's priority; `VideoAllocator` picks a layer or nothing for
/// each, within the budget; a probe tests the next step with padding (or, where no slot can carry
/// padding, raises the budget one step when the path has been clean), and the slots follow: a new layer at its next key frame (`admitLayer`), a switched-off slot sends
/// nothing and says so (`.trackSwitched`), and a switched-on VP8 slot starts at a key frame.
extension PeerSession {
    /// The receiver's new report blocks on our video slots (the worst loss counts) and its
    /// estimate, to the budget.
    func readDownlinkFeedback(estimate: UInt64?, now: Double) {
        var worst: Double?
        var probeRoundTrip: Double?
        var track = 0
        while track < slotVideo.count {
            defer { track += 1 }
            guard slotVideo[track] != nil, track < rtp.sendStreams.count,
                  rtp.sendStreams[track].remoteReportCount != slotVideo[track]?.reportsRead,
                  let report = rtp.sendStreams[track].remoteReport else { continue }
            slotVideo[track]?.reportsRead = rtp.sendStreams[track].remoteReportCount
            worst = max(worst ?? 0, Double(report.fractionLost) / 256)
            if let sent = downlink.probeReport, report.lastSenderReport == sent {
                probeRoundTrip = rtp.sendStreams[track].roundTripTime?.seconds
            }
        }
        let before = downlink.budget.bitrate
        if let worst {
            downlink.budget.reported(fractionLost: worst, forwarding: downlink.forwarding, probeRoundTrip: probeRoundTrip, now: now)
        }
        if probeRoundTrip != nil {
            Log.debug(.webrtc, "session \(id): the probe's round trip \(probeRoundTrip ?? 0) s (loss \(worst ?? 0)): "
                      + "\(downlink.budget.prober.isRunning ? "no verdict" : "budget \(downlink.budget.bitrate ?? 0)")")
            downlink.probeReport = nil
        }
        if let estimate { downlink.budget.estimated(Int(clamping: estimate), forwarding: downlink.forwarding, now: now) }
        if downlink.budget.bitrate != before {
            Log.debug(.webrtc, "session \(id): video budget \(downlink.budget.bitrate ?? 0) bit/s (loss \(worst ?? 0), "
                      + "estimate \(estimate.map(String.init) ?? "-"), forwarding \(downlink.forwarding))")
        }
    }

    /// Allocates the budget among the video slots and applies the result (each tick).
    func allocateVideo(now: Double, out: inout [Datagram]) {
        gatherDemands(now: now)
        guard !downlink.demands.isEmpty else {
            downlink.forwarding = 0
            downlink.wanted = 0
            return
        }
        downlink.wanted = 0
        for demand in downlink.demands { downlink.wanted += downlink.allocator.bitrates[demand.layers.upperBound - 1] }
        downlink.budget.tick(now: now)
        let congested = downlink.budget.congested(now: now)
        downlink.allocator.allocate(downlink.demands, budget: downlink.budget.bitrate, profile: downlink.profile, congested: congested)
        if let next = downlink.allocator.nextStep {
            if let track = paddingSlot() {
                if downlink.budget.startProbe(needed: next, roundTrip: rtp.sendStreams[track].roundTripTime?.seconds, now: now) {
                    startPadding(track: track, now: now)
                }
            } else if downlink.budget.probe(needed: next, now: now) {
                Log.debug(.webrtc, "session \(id): stepping up to \(next) bit/s (forwarding \(downlink.forwarding))")
                downlink.allocator.allocate(downlink.demands, budget: downlink.budget.bitrate, profile: downlink.profile,
                                            congested: congested)
            }
        }
        counters.probesPassed = downlink.budget.prober.passed
        counters.probesFailed = downlink.budget.prober.failed
        downlink.forwarding = downlink.allocator.used
        fitRetransmissionAllowance()
        var index = 0
        while index < downlink.demands.count {
            let track = downlink.demandTracks[index]
            switch downlink.allocator.allocations[index] {
            case .off:
                switchSlot(track, on: false, now: now, out: &out)
            case .layer(let rank):
                switchSlot(track, on: true, now: now, out: &out)
                if let layer = downlink.layerOfEntry[downlink.demands[index].layers.lowerBound + rank] {
                    target(layer, track: track, now: now, out: &out)
                }
            }
            index += 1
        }
    }

    /// Fills the demands from the slots' sources: live layers smallest first, their bitrates and heights.
    private func gatherDemands(now: Double) {
        downlink.demands.removeAll(keepingCapacity: true)
        downlink.demandTracks.removeAll(keepingCapacity: true)
        downlink.layerOfEntry.removeAll(keepingCapacity: true)
        downlink.allocator.bitrates.removeAll(keepingCapacity: true)
        downlink.allocator.heights.removeAll(keepingCapacity: true)
        var track = 0
        while track < slotVideo.count {
            defer { track += 1 }
            guard let video = slotVideo[track], let source = roomSources[track] else { continue }
            let inbound = source.session.roomInbound[source.inbound]
            let first = downlink.allocator.bitrates.count
            if let layers = inbound.layers {
                layers.ranked(now: now, into: &downlink.ranks)
                for layer in downlink.ranks {
                    downlink.allocator.bitrates.append(layers.layers[layer].bitrate)
                    downlink.allocator.heights.append(Int(layers.layers[layer].height ?? 0))
                    downlink.layerOfEntry.append(layer)
                }
            } else if inbound.meter.isLive(now: now, within: SimulcastLayers.staleAfter) {
                downlink.allocator.bitrates.append(inbound.meter.bitrate)
                downlink.allocator.heights.append(0)
                downlink.layerOfEntry.append(nil)
            }
            let entries = first..<downlink.allocator.bitrates.count
            guard !entries.isEmpty else { continue }  // the source sends nothing now: nothing to share
            // The rank it has: its target layer's (or, without simulcast, its one layer while on).
            var current: Int?
            if !video.switchedOff {
                let target = video.targetLayer ?? video.layer
                current = entries.firstIndex { downlink.layerOfEntry[$0] == target }.map { $0 - first }
            }
            downlink.demands.append(VideoDemand(priority: video.priority, layers: entries, isOff: video.switchedOff,
                                                current: current))
            downlink.demandTracks.append(track)
        }
    }

    /// Switches slot `track` off (it forwards nothing) or back on (a VP8 slot waits for a key frame,
    /// asked of its source), telling the owner on a change.
    private func switchSlot(_ track: Int, on: Bool, now: Double, out: inout [Datagram]) {
        guard let video = slotVideo[track], video.switchedOff == on else { return }
        slotVideo[track]?.switchedOff = !on
        if on {
            slotVideo[track]?.awaitingKeyFrame = true
            requestSourceKeyframe(track: track, now: now, out: &out)
        } else {
            slotVideo[track]?.targetLayer = nil
            slotVideo[track]?.layer = nil
        }
        counters.slotSwitches += 1
        if let mid = offer.sections[rtp.sendStreams[track].section].mid {
            events?.send(.trackSwitched(sessionID: id, mid: mid, off: !on))
        }
    }

    /// Makes `layer` slot `track`'s target: the slot switches at that layer's next key frame,
    /// which is asked for at once.
    private func target(_ layer: Int, track: Int, now: Double, out: inout [Datagram]) {
        guard slotVideo[track]?.targetLayer != layer, let source = roomSources[track] else { return }
        Log.debug(.webrtc, "session \(id): slot \(track) targets layer \(layer)")
        downlink.budget.switched(now: now)
        slotVideo[track]?.targetLayer = layer
        if slotVideo[track]?.layer != layer {
            source.session.requestKeyframe(inbound: source.inbound, layer: layer, now: now, out: &out)
        }
    }
}
