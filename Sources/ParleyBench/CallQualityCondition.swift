import Foundation
import NetworkConditioner

/// A network condition of `parley-bench call-quality`, stated end to end (alice → server → bob)
/// and applied by the relay on each hop: alice's upstream and bob's downstream each get the
/// per-hop share, so two hops compose to the end-to-end figure. Loss p end to end is
/// 1 − √(1 − p) per hop; jitter J end to end is 0–J/2 per hop (the sum of two uniform draws spans
/// 0–J); a bursty loss keeps its mean burst length on each hop.
struct CallQualityCondition: Sendable {
    let name: String
    let summary: String
    let lossPercent: Double
    let meanBurst: Double?
    let jitterMs: Double

    static let all: [CallQualityCondition] = [
        CallQualityCondition(name: "clean", summary: "clean", lossPercent: 0, meanBurst: nil, jitterMs: 0),
        CallQualityCondition(name: "loss10", summary: "10 % random loss", lossPercent: 10, meanBurst: nil, jitterMs: 0),
        CallQualityCondition(name: "loss10-jitter30", summary: "10 % loss + 0–30 ms jitter", lossPercent: 10, meanBurst: nil,
                             jitterMs: 30),
        CallQualityCondition(name: "loss20", summary: "20 % random loss", lossPercent: 20, meanBurst: nil, jitterMs: 0),
        CallQualityCondition(name: "bursty5", summary: "bursty loss 5 %, mean burst 3", lossPercent: 5, meanBurst: 3, jitterMs: 0),
    ]

    static func named(_ name: String) -> CallQualityCondition? { all.first { $0.name == name } }

    /// The loss on each of the two hops, percent.
    var perHopLossPercent: Double { 100 * (1 - (1 - lossPercent / 100).squareRoot()) }

    /// What the relay applies on each hop, both directions alike.
    var perHop: NetworkConditions {
        var conditions = NetworkConditions()
        conditions.loss = NetworkConditions.loss(percent: perHopLossPercent, meanBurstLength: meanBurst)
        conditions.jitterMicroseconds = Int64(jitterMs * 500)
        conditions.allowsReordering = jitterMs > 0
        return conditions
    }

    /// How the per-hop conditions read, for the table.
    var perHopSummary: String {
        var parts: [String] = []
        if lossPercent > 0 {
            parts.append(String(format: "%.2f %% %@loss", perHopLossPercent, meanBurst == nil ? "" : "bursty "))
        }
        if jitterMs > 0 { parts.append(String(format: "0–%.0f ms jitter", jitterMs / 2)) }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}
