import ParleyRTP
import RTCP
import Testing

/// Transport-wide CC feedback built from arrivals (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1).
struct TransportFeedbackRecorderTests {
    @Test func everyPacketSinceTheLastFeedbackIsReportedWithItsTimeOrAsLost() throws {
        var recorder = TransportFeedbackRecorder()
        let none = recorder.feedback(senderSSRC: 1, mediaSSRC: 2)
        #expect(none == nil)
        recorder.record(100, arrivalMicroseconds: 1_000_000)
        recorder.record(101, arrivalMicroseconds: 1_005_000)
        recorder.record(103, arrivalMicroseconds: 1_020_000)  // 102 lost
        let firstBuilt = recorder.feedback(senderSSRC: 1, mediaSSRC: 2)
        let first = try #require(firstBuilt)
        #expect(first.baseSequenceNumber == 100 && first.packetStatusCount == 4 && first.feedbackPacketCount == 0)
        let results = first.packetResults
        #expect(results.map(\.sequenceNumber) == [100, 101, 102, 103])
        #expect(results.map { $0.arrivalTime != nil } == [true, true, false, true])
        // Deltas are 250 µs units against the quantized reference (64 ms units).
        #expect(results[1].arrivalTime! - results[0].arrivalTime! == 5_000)
        #expect(results[3].arrivalTime! - results[1].arrivalTime! == 15_000)
        let nothingNew = recorder.feedback(senderSSRC: 1, mediaSSRC: 2)
        #expect(nothingNew == nil, "nothing new")

        // The next feedback starts after what was reported; a late 102 is not reported again.
        recorder.record(102, arrivalMicroseconds: 1_030_000)
        recorder.record(104, arrivalMicroseconds: 1_040_000)
        let secondBuilt = recorder.feedback(senderSSRC: 1, mediaSSRC: 2)
        let second = try #require(secondBuilt)
        #expect(second.baseSequenceNumber == 104 && second.packetStatusCount == 1 && second.feedbackPacketCount == 1)
        #expect(recorder.late == 1)
    }

    @Test func sequenceNumbersWrapAndOldPacketsBeyondTheCapacityAreDropped() throws {
        var recorder = TransportFeedbackRecorder(capacity: 16)
        recorder.record(65_534, arrivalMicroseconds: 10)
        recorder.record(65_535, arrivalMicroseconds: 20)
        recorder.record(0, arrivalMicroseconds: 30)
        recorder.record(1, arrivalMicroseconds: 40)
        let wrappedBuilt = recorder.feedback(senderSSRC: 1, mediaSSRC: 2)
        let wrapped = try #require(wrappedBuilt)
        #expect(wrapped.packetResults.map(\.sequenceNumber) == [65_534, 65_535, 0, 1])
        // 40 packets before the next feedback: only the last 16 fit.
        for i in 2..<42 { recorder.record(UInt16(i), arrivalMicroseconds: Int64(100 + i * 1000)) }
        let boundedBuilt = recorder.feedback(senderSSRC: 1, mediaSSRC: 2)
        let bounded = try #require(boundedBuilt)
        #expect(bounded.baseSequenceNumber == 26 && bounded.packetStatusCount == 16)
        #expect(bounded.packetResults.allSatisfy { $0.arrivalTime != nil })
    }

    @Test func feedbackSurvivesSerializationAsTheWireFormat() throws {
        var recorder = TransportFeedbackRecorder()
        for i in 0..<50 where i % 7 != 3 { recorder.record(UInt16(i), arrivalMicroseconds: 500_000 + Int64(i) * 2_500) }
        let feedbackBuilt = recorder.feedback(senderSSRC: 9, mediaSSRC: 8)
        let feedback = try #require(feedbackBuilt)
        let bytes = RTCPPacket.serialized([.transportCC(feedback)])
        let parsed = try bytes.withUnsafeBytes { try TransportLayerCC(parsing: $0) }
        #expect(parsed == feedback)
        #expect(parsed.packetResults.filter { $0.arrivalTime == nil }.map(\.sequenceNumber) == [3, 10, 17, 24, 31, 38, 45])
    }
}
