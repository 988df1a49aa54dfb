import Foundation
import ParleyNet
import ParleyStore
import ParleyTestSupport
import PlatformCore
import RoomService
import ServerMedia
import Testing

/// After a crash (or a shutdown that flushed them): recordings left `processing` are finished
/// at the next start from their live files, with the real ffmpeg (remux) and ffprobe (duration);
/// one whose file is gone fails.
@Suite(.tags(.interop)) struct RoomRecordingRecoveryTests {
    @Test func recordingsLeftProcessingAreRemuxedAndCompletedAtStart() async throws {
        let store = InMemoryAccountStore()
        let account = try store.ensureDefaultAccount().account.sid
        let directory = NSTemporaryDirectory() + "parley-rec-recovery-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Two seconds of Opus written by a recorder, then the process "dies".
        let sid = SID.make("RT")
        let recorder = try TrackRecorder(path: "\(directory)/\(sid).ogg", codec: .opus)
        for i in 0..<100 {
            recorder.receive(TappedRTPPacket(payload: [0xF8] + [UInt8](repeating: 0x55, count: 30), ssrc: 1,
                                             sequenceNumber: UInt16(i), timestamp: UInt32(i * 960), marker: false,
                                             arrival: Double(i) / 50))
        }
        _ = try recorder.finish()
        func record(_ sid: String, path: String) -> RoomRecordingRecord {
            RoomRecordingRecord(sid: sid, accountSid: account, roomSid: "RM1", participantSid: "PA1", sourceSid: "MT1",
                                trackName: "mic", kind: .audio, codec: "OPUS", container: "mka", offset: 1, filePath: path,
                                createdAt: 1, updatedAt: 1)
        }
        try store.insertRoomRecording(record(sid, path: "\(directory)/\(sid).ogg"))
        let lost = SID.make("RT")
        try store.insertRoomRecording(record(lost, path: "\(directory)/\(lost).ogg"))

        let http = try HTTPClient()
        defer { http.shutdown() }
        var configuration = RoomService.Configuration()
        configuration.recordingsDirectory = directory
        let service = RoomService(store: store, webhooks: WebhookClient(http: http), configuration: configuration)
        service.settleUnfinishedRecordings()
        for _ in 0..<10_000 where !(try store.unfinishedRoomRecordings()).isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        let recovered = try #require(try store.roomRecording(sid: sid))
        #expect(recovered.status == .completed && recovered.filePath == "\(directory)/\(sid).mka" && recovered.duration == 2)
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/\(sid).ogg"))
        let probe = try FFprobe.read(recovered.filePath)
        #expect(probe.codecs == ["opus"] && abs(probe.duration - 2) < 0.05, "\(probe)")
        #expect(try store.roomRecording(sid: lost)?.status == .failed)
    }

    /// The Opus packets of an Ogg file (RFC 3533 lacing), the two header packets first.
    static func oggPackets(_ bytes: [UInt8]) -> [[UInt8]] {
        var packets: [[UInt8]] = [], current: [UInt8] = []
        var i = 0
        while i + 27 <= bytes.count {
            let segments = Int(bytes[i + 26])
            var offset = i + 27 + segments
            for s in 0..<segments {
                let length = Int(bytes[i + 27 + s])
                current += bytes[offset..<offset + length]
                offset += length
                if length < 255 {
                    packets.append(current)
                    current = []
                }
            }
            i = offset
        }
        return packets
    }

    /// Real Opus (ffmpeg's libopus, 3 s of tone) recorded with a second lost in the middle: the
    /// gap is filled, ffmpeg decodes the whole remuxed file, and it lasts the 3 s.
    @Test func aLossInRealOpusIsAGapFFmpegDecodes() async throws {
        let directory = NSTemporaryDirectory() + "parley-rec-gap-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ffmpeg = try #require(FFmpeg())
        let source = "\(directory)/tone.ogg"
        let made = await Subprocess.run(ffmpeg.executable, arguments: [
            "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3:sample_rate=48000", "-c:a", "libopus",
            "-frame_duration", "20", "-b:a", "32k", source], timeout: .seconds(60))
        #expect(made?.succeeded == true)
        let packets = Array(Self.oggPackets([UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))).dropFirst(2))
        #expect(packets.count >= 150)  // 3 s, and the encoder's delay
        let recorder = try TrackRecorder(path: "\(directory)/RT1.ogg", codec: .opus)
        for (i, packet) in packets.enumerated() where !(50..<100).contains(i) {
            recorder.receive(TappedRTPPacket(payload: packet, ssrc: 1, sequenceNumber: UInt16(i), timestamp: UInt32(i * 960),
                                             marker: false, arrival: Double(i) / 50))
        }
        let written = try recorder.finish()
        #expect(written.frames == packets.count - 50 && written.lostPackets == 50)
        let size = try await ffmpeg.remuxToMatroska("\(directory)/RT1.ogg", output: "\(directory)/RT1.mka")
        #expect(size > 0)
        let probe = try FFprobe.read("\(directory)/RT1.mka")
        // Every packet decodes (the 50 fillers too) and the file lasts as long as the tone.
        #expect(probe.codecs == ["opus"] && probe.frames == [packets.count], "\(probe)")
        #expect(abs(probe.duration - Double(packets.count) * 0.02 + 312.0 / 48_000) < 0.05, "\(probe)")
    }
}
