/// One video subscription as the allocator sees it: its priority (after the dominant-speaker
/// rule), its live layers smallest first as a range of the allocator's `bitrates` and `heights`
/// (one layer for a track without simulcast), and whether it is switched off now.
public struct VideoDemand: Sendable, Hashable {
    public var priority: TrackPriority
    public var layers: Range<Int>
    public var isOff: Bool
    /// The rank it has now, if any: kept while it fits with `VideoAllocator.keepMargin` to spare.
    public var current: Int?

    public init(priority: TrackPriority, layers: Range<Int>, isOff: Bool, current: Int? = nil) {
        self.priority = priority
        self.layers = layers
        self.isOff = isOff
        self.current = current
    }
}

/// What one subscription gets: a layer (its rank among the demand's layers) or nothing.
public enum VideoAllocation: Sendable, Hashable {
    case off
    case layer(Int)
}

/// Shares one subscriber's video budget (`SubscriberBudget`, capped by the bandwidth profile's
/// `maxSubscriptionBitrate`) among its subscriptions, as LiveKit's and Twilio's SFUs do: first
/// every subscription its smallest layer, by priority, switching off those that no longer fit
/// (as the profile's switch-off mode allows); then steps up as the profile's mode says,
/// never past the largest layer its priority's render dimensions are worth. A track switched off
/// comes back only when its smallest layer fits with `switchOnMargin` to spare, and a layer a
/// subscription has is kept while the budget falls short of it by no more than `keepMargin`
/// (a layer's measured bitrate wanders, and a key frame's burst lifts it), so neither flaps.
/// Reused between calls: the scratch arrays keep their storage.
public struct VideoAllocator: Sendable {
    /// A switched-off track needs its smallest layer × this to come back.
    public static let switchOnMargin = 1.2
    /// The share of the budget by which the layers subscriptions already have may overrun it.
    public static let keepMargin = 0.15

    /// Filled by the owner before `allocate`: every demand's layer bitrates (bits/s) and heights
    /// (0 when not known yet), smallest layer first.
    public var bitrates: [Int] = []
    public var heights: [Int] = []
    /// The result, one per demand.
    public private(set) var allocations: [VideoAllocation] = []
    /// Bits per second the allocations add up to.
    public private(set) var used = 0
    /// The budget the next improvement needs (a switch-on or a step up), when one is left within
    /// the profile's cap: what a probe raises the budget to.
    public private(set) var nextStep: Int?
    private var order: [Int] = []
    private var tops: [Int] = []

    public init() {}

    /// Shares `budget` (nil: unlimited) among `demands` as `profile` says; `congested`: the
    /// subscriber's path showed congestion lately (what `detected` switch-off waits for).
    public mutating func allocate(_ demands: [VideoDemand], budget: Int?, profile: BandwidthProfile, congested: Bool = false) {
        allocations.removeAll(keepingCapacity: true)
        tops.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        for (index, demand) in demands.enumerated() {
            allocations.append(.off)
            tops.append(top(demand, profile: profile))
            order.append(index)
        }
        order.sort { a, b in demands[a].priority != demands[b].priority ? demands[a].priority > demands[b].priority : a < b }
        let limit = min(budget ?? Int.max, profile.maxSubscriptionBitrate ?? Int.max)
        var remaining = limit
        // Steps back to a layer a subscription has may use the margin; steps beyond it may not.
        let margin = limit == Int.max ? 0 : Int(Double(limit) * Self.keepMargin)
        var spare = margin
        // Everyone's smallest layer first, by priority.
        for index in order where !demands[index].layers.isEmpty {
            let smallest = bitrates[demands[index].layers.lowerBound]
            let need = demands[index].isOff ? Int(Double(smallest) * Self.switchOnMargin) : smallest
            let keeping = demands[index].current != nil && smallest <= remaining + spare
            if need <= remaining || keeping || !Self.mayBeOff(demands[index], profile: profile, congested: congested) {
                allocations[index] = .layer(0)
                if keeping, smallest > remaining { spare -= smallest - remaining }
                remaining -= smallest
            }
        }
        // Steps up: by tier (collaboration, presentation) or all alike (grid).
        var tierStart = 0
        while tierStart < order.count {
            var tierEnd = tierStart + 1
            if profile.mode != .grid {
                while tierEnd < order.count, demands[order[tierEnd]].priority == demands[order[tierStart]].priority { tierEnd += 1 }
            } else {
                tierEnd = order.count
            }
            var progressed = true
            while progressed {
                progressed = false
                for position in tierStart..<tierEnd {
                    let index = order[position]
                    guard case .layer(let rank) = allocations[index], rank < tops[index] else { continue }
                    let step = cost(demands[index], rank + 1) - cost(demands[index], rank)
                    let keeping = rank + 1 <= (demands[index].current ?? -1)
                    if step <= remaining || (keeping && step <= remaining + spare) {
                        allocations[index] = .layer(rank + 1)
                        if step > remaining { spare -= step - remaining }
                        remaining -= step
                        progressed = true
                    }
                }
            }
            // Presentation: only the highest tier present steps up.
            if profile.mode == .presentation { break }
            tierStart = tierEnd
        }
        used = 0
        var cheapest = Int.max
        for (index, demand) in demands.enumerated() where !demand.layers.isEmpty {
            switch allocations[index] {
            case .off:
                let smallest = bitrates[demand.layers.lowerBound]
                cheapest = min(cheapest, demand.isOff ? Int(Double(smallest) * Self.switchOnMargin) : smallest)
            case .layer(let rank):
                used += cost(demand, rank)
                if rank < tops[index], profile.mode != .presentation || demand.priority == demands[order[0]].priority {
                    cheapest = min(cheapest, cost(demand, rank + 1) - cost(demand, rank))
                }
            }
        }
        let next = cheapest == Int.max ? nil : used + max(cheapest, 1)
        nextStep = next.flatMap { $0 <= (profile.maxSubscriptionBitrate ?? Int.max) ? $0 : nil }
    }

    private func cost(_ demand: VideoDemand, _ rank: Int) -> Int { bitrates[demand.layers.lowerBound + rank] }

    /// Whether the switch-off mode lets a demand be off: `detected` only on a congested path (or
    /// when it is off already, until it fits again).
    private static func mayBeOff(_ demand: VideoDemand, profile: BandwidthProfile, congested: Bool) -> Bool {
        switch profile.trackSwitchOffMode {
        case .predicted: true
        case .detected: congested || demand.isOff
        case .disabled: false
        }
    }

    /// The largest rank worth sending: the largest layer no taller than the priority's render
    /// dimensions (a layer of unknown height counts as fitting), at least the smallest.
    private func top(_ demand: VideoDemand, profile: BandwidthProfile) -> Int {
        let count = demand.layers.count
        guard count > 1, let dimensions = profile.renderDimensions[demand.priority] else { return max(count - 1, 0) }
        var rank = 0
        while rank + 1 < count, heights[demand.layers.lowerBound + rank + 1] <= dimensions.height { rank += 1 }
        return rank
    }
}
