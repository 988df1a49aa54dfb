import AudioCore
import Foundation
import HTTPWire
import ParleyServer
import ParleyStore
import Testing

/// `Recordings/{RE}.mp3` (encoded with LAME on first request, kept beside the WAV) and
/// `DELETE Recordings/{RE}.json` (the row and both files go).
@Suite struct RESTRecordingTests {
    /// A recording row over a real 8 kHz WAV of a 440 Hz tone in a fresh directory.
    static func recording(_ f: RESTFixture, in dir: URL, channels: Int = 1, seconds: Double = 2) throws -> RecordingRecord {
        let frames = Int(seconds * 8000)
        var samples: [Int16] = []
        for i in 0..<frames {
            for c in 0..<channels { samples.append(Int16(6000 * sin(2 * .pi * 440 * Double(c + 1) * Double(i) / 8000))) }
        }
        let sid = SID.make("RE")
        let file = dir.appendingPathComponent("\(sid).wav")
        try Data(WAVFile(sampleRate: 8000, channels: channels, samples: samples).serialized).write(to: file)
        let call = try f.insertCall(start: 1_800_000_000)
        let row = RecordingRecord(sid: sid, accountSid: f.account.sid, callSid: call.sid, duration: Int64(seconds),
                                  channels: channels, sampleRate: 8000, status: "completed", filePath: file.path,
                                  source: "RecordVerb", createdAt: 1_800_000_010)
        try f.store.insertRecording(row)
        return row
    }

    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-rest-rec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func mp3IsEncodedOnceAndKeptPrivate() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let f = try RESTFixture()
        let mono = try Self.recording(f, in: dir)
        let first = await f.get("\(f.accountPath)/Recordings/\(mono.sid).mp3", headers: [:])
        #expect(first.status == 200 && first.headers["Content-Type"] == "audio/mpeg")
        // MPEG-2.5 Layer III frame headers (0xFFE3…), 32 kbit/s × 2 s ≈ 8 KB.
        #expect(first.body.count > 6000 && first.body.count < 12_000)
        #expect(first.body.prefix(2) == [0xFF, 0xE3])
        let cached = dir.appendingPathComponent("\(mono.sid).mp3").path
        let mode = try FileManager.default.attributesOfItem(atPath: cached)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(FileManager.default.contents(atPath: cached).map(Array.init) == first.body)
        // The second request serves the kept file (a changed one proves it is not re-encoded).
        try Data([0xFF, 0xE3, 0x18, 0xC4]).write(to: URL(fileURLWithPath: cached))
        #expect(await f.get("\(f.accountPath)/Recordings/\(mono.sid).mp3").body == [0xFF, 0xE3, 0x18, 0xC4])

        let dual = try Self.recording(f, in: dir, channels: 2, seconds: 1)
        let stereo = await f.get("\(f.accountPath)/Recordings/\(dual.sid).mp3")
        #expect(stereo.status == 200 && stereo.body.count > 6000)  // 64 kbit/s × 1 s
        #expect(stereo.body.count > 3 && stereo.body[3] >> 6 == 0)   // channel mode: stereo, not joint
    }

    @Test func deleteRemovesTheRowAndItsFiles() async throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let f = try RESTFixture()
        let r = try Self.recording(f, in: dir)
        #expect(await f.get("\(f.accountPath)/Recordings/\(r.sid).mp3").status == 200)
        let mp3 = dir.appendingPathComponent("\(r.sid).mp3").path
        #expect(FileManager.default.fileExists(atPath: mp3))

        let gone = await f.delete("\(f.accountPath)/Recordings/\(r.sid).json")
        #expect(gone.status == 204)
        #expect(!FileManager.default.fileExists(atPath: r.filePath) && !FileManager.default.fileExists(atPath: mp3))
        #expect(try f.store.recording(sid: r.sid) == nil)
        #expect(await f.get("\(f.accountPath)/Recordings/\(r.sid).json").status == 404)
        #expect(await f.get("\(f.accountPath)/Recordings/\(r.sid).wav").status == 404)
        #expect(await f.delete("\(f.accountPath)/Recordings/\(r.sid).json").status == 404)

        // Under its call too; a failed recording without a file deletes all the same.
        let other = try Self.recording(f, in: dir)
        try FileManager.default.removeItem(atPath: other.filePath)
        #expect(await f.delete("\(f.accountPath)/Calls/\(other.callSid)/Recordings/\(other.sid).json").status == 204)
        #expect(try f.store.recording(sid: other.sid) == nil)
        // The audio URL takes GET only.
        let third = try Self.recording(f, in: dir)
        #expect(await f.delete("\(f.accountPath)/Recordings/\(third.sid).wav").status == 405)
        #expect(FileManager.default.fileExists(atPath: third.filePath))
    }
}
