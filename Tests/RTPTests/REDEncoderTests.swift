import RTP
import Testing

/// The RED encoder's history and distance, block renaming, and the distance controller (RFC 2198).
@Suite struct REDEncoderTests {
    static func encode(_ encoder: inout REDEncoder, _ frame: [UInt8], timestamp: UInt32) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: REDEncoder.capacity(primaryCapacity: 64))
        let length = frame.withUnsafeBytes { primary in
            out.withUnsafeMutableBytes { encoder.encode(primary: primary, timestamp: timestamp, blockPayloadType: 111, into: $0)!.length }
        }
        return Array(out[0..<length])
    }

    static func blocks(_ payload: [UInt8]) throws -> [[UInt8]] {
        try payload.withUnsafeBytes { try REDPayloadView($0).map { Array($0.data) } }
    }

    @Test func raisingTheDistanceRepeatsFramesRememberedWhilePlain() throws {
        var encoder = REDEncoder(payloadType: 63, distance: 0)
        #expect(try Self.blocks(Self.encode(&encoder, [1], timestamp: 0)) == [[1]])
        [UInt8]([2]).withUnsafeBytes { encoder.remember($0, timestamp: 960) }
        encoder.distance = 3
        let third = try Self.blocks(Self.encode(&encoder, [3], timestamp: 1_920))
        #expect(third == [[1], [2], [3]])
        #expect(try Self.blocks(Self.encode(&encoder, [4], timestamp: 2_880)) == [[1], [2], [3], [4]])
        encoder.distance = 9
        #expect(encoder.distance == REDEncoder.maxDistance)
        encoder.distance = 1
        #expect(try Self.blocks(Self.encode(&encoder, [5], timestamp: 3_840)) == [[4], [5]])
        // A frame 2^14 ticks or more before the new one cannot be carried (§3: 14-bit offset).
        #expect(try Self.blocks(Self.encode(&encoder, [6], timestamp: 3_840 + 16_384)) == [[6]])
    }

    @Test func renamingRewritesEveryBlockTypeAndKeepsTheData() throws {
        var encoder = REDEncoder(payloadType: 63, distance: 2)
        _ = Self.encode(&encoder, [1, 1], timestamp: 0)
        _ = Self.encode(&encoder, [2, 2], timestamp: 960)
        var payload = Self.encode(&encoder, [3, 3], timestamp: 1_920)
        let renamed = payload.withUnsafeMutableBytes { REDPayloadView.renameBlocks(in: $0, to: 109) }
        #expect(renamed)
        try payload.withUnsafeBytes { raw in
            let view = try REDPayloadView(raw)
            #expect(view.map(\.payloadType) == [109, 109, 109])
            #expect(view.map { Array($0.data) } == [[1, 1], [2, 2], [3, 3]])
            #expect(view.map(\.timestampOffset) == [1_920, 960, 0])
        }
        var broken: [UInt8] = [0xFF, 0]
        let refused = !broken.withUnsafeMutableBytes { REDPayloadView.renameBlocks(in: $0, to: 109) }
        #expect(refused)
        #expect(broken == [0xFF, 0])
    }

    /// 256 × percent / 100, as RTCP's fraction lost carries it.
    static func fraction(_ percent: Double) -> UInt8 { UInt8(min(255, (percent * 256 / 100).rounded())) }

    @Test func distanceRisesAtOnceAndFallsSlowlyWhenLossStops() {
        var controller = REDDistanceController()
        #expect(controller.distance == 1)
        var changed = controller.reportRemoteLoss(fractionLost: Self.fraction(5))
        #expect(changed && controller.distance == 2)
        changed = controller.reportRemoteLoss(fractionLost: Self.fraction(20))
        #expect(changed && controller.distance == 3)
        // One clean report in a lossy network changes nothing; a run of them steps the distance down.
        changed = controller.reportRemoteLoss(fractionLost: 0)
        #expect(!changed)
        var distances: [Int] = []
        for _ in 0..<30 {
            controller.reportRemoteLoss(fractionLost: 0)
            distances.append(controller.distance)
        }
        #expect(zip(distances, distances.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(distances.first == 3 && distances.last == 0)
        #expect(Set(distances) == [3, 2, 1, 0])
    }

    /// Per-second losses of 50 packets at 5 % (a binomial draw): the smoothed loss keeps distance 2
    /// through the seconds that show one loss or none.
    @Test func noisyReportsOfSteadyLossKeepTheDistance() {
        var controller = REDDistanceController()
        for lost in [3, 2, 1, 4, 0, 2, 3, 1, 2, 5, 0, 1, 3, 2, 2, 1, 0, 4, 2, 3] {
            controller.reportRemoteLoss(fractionLost: UInt8(lost * 256 / 50))
            #expect(controller.distance >= 2, "distance \(controller.distance) at \(controller.lossPercent) %")
        }
        #expect(REDDistanceController(maxDistance: 2).distance(forLossPercent: 50) == 2)
    }
}
