import Testing
import ParleyAudio

@Suite struct OpusFECControllerTests {
    /// Feeds reports in order; returns, for each, whether the state changed.
    static func feed(_ fec: inout OpusFECController, _ reports: [UInt8]) -> [Bool] {
        reports.map { fec.reportRemoteLoss(fractionLost: $0) }
    }

    @Test func adaptiveTurnsOnWithLossAndOffAfterCleanReports() {
        var fec = OpusFECController(policy: .adaptive)
        #expect(!fec.isEnabled && fec.expectedLossPercent == 0)
        // 0 %, 0.8 % (below the 1 % threshold), 20.3 %, 5.1 %.
        #expect(Self.feed(&fec, [0, 2, 52]) == [false, false, true])
        #expect(fec.isEnabled && fec.expectedLossPercent == 20)
        #expect(Self.feed(&fec, [13]) == [true])
        #expect(fec.expectedLossPercent == 5)
        #expect(Self.feed(&fec, [0, 0]) == [false, false])
        #expect(fec.isEnabled)
        #expect(Self.feed(&fec, [0]) == [true])  // the third clean report
        #expect(!fec.isEnabled && fec.expectedLossPercent == 0)
    }

    @Test func aLossyReportResetsTheCleanCount() {
        var fec = OpusFECController(policy: .adaptive)
        _ = Self.feed(&fec, [26])  // 10.2 %
        #expect(fec.expectedLossPercent == 10)
        _ = Self.feed(&fec, [0, 0, 3, 0, 0])  // 1.2 % in between: still lossy
        #expect(fec.isEnabled && fec.expectedLossPercent == 1)
    }

    @Test func fixedPoliciesIgnoreReports() {
        var off = OpusFECController(policy: .off)
        var always = OpusFECController(policy: .always(expectedLossPercent: 15))
        #expect(Self.feed(&off, [200]) == [false])
        #expect(Self.feed(&always, [0]) == [false])
        #expect(!off.isEnabled && always.isEnabled && always.expectedLossPercent == 15)
    }

    @Test func bucketsFollowWebRTC() {
        #expect(OpusFECController.bucket(lossPercent: 0) == 0)
        #expect(OpusFECController.bucket(lossPercent: 0.4) == 1)
        #expect(OpusFECController.bucket(lossPercent: 4.9) == 1)
        #expect(OpusFECController.bucket(lossPercent: 9) == 5)
        #expect(OpusFECController.bucket(lossPercent: 12) == 10)
        #expect(OpusFECController.bucket(lossPercent: 45) == 20)
        #expect(OpusFECController.lossPercent(fractionLost: 128) == 50)
    }
}
