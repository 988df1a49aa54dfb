import Foundation
import Testing
import AudioCore
import AudioDevices

@Suite struct WAVFileWriterTests {
    @Test func streamsSamplesAndFixesTheSizesOnClose() throws {
        let path = AudioTestSupport.temporaryPath("stream.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try WAVFileWriter(path: path, sampleRate: 24_000, channels: 2)
        // Before anything is flushed the header says "to the end of the file".
        let header = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        #expect(header.count == 44 && Array(header[40..<44]) == [0xFF, 0xFF, 0xFF, 0xFF])

        let samples = (0..<100_003).map { Int16(truncatingIfNeeded: $0 &* 7) }
        var offset = 0
        for size in [1, 333, 40_000, 2, 59_667] {       // odd sizes, one larger than the 64 KiB buffer
            samples[offset..<offset + size].withUnsafeBufferPointer { try? writer.append($0) }
            offset += size
        }
        // A recording cut off before close already parses up to what was flushed.
        let partial = try WAVFile(contentsOfFile: path)
        #expect(partial.samples.count > 60_000 && partial.samples == Array(samples.prefix(partial.samples.count)))

        samples[offset...].withUnsafeBufferPointer { try? writer.append($0) }
        try writer.close()
        try writer.close()
        #expect(writer.samplesWritten == 100_003 && !writer.isOpen)
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        #expect(bytes.count == 44 + 200_006)
        let file = try WAVFile(parsing: bytes)
        #expect(file.sampleRate == 24_000 && file.channels == 2)
        #expect(file.samples == Array(samples.prefix(100_002)), "whole frames only")
        #expect(Array(bytes[4..<8]) == [0x6A, 0x0D, 0x03, 0x00])   // 200 042 = 36 + data
        #expect(throws: AudioDeviceError.self) { try [Int16(1)].withUnsafeBufferPointer { try writer.append($0) } }
    }

    @Test func reportsWhyItCannotCreateTheFile() {
        #expect {
            _ = try WAVFileWriter(path: "/nonexistent/dir/out.wav", sampleRate: 8_000, channels: 1)
        } throws: { error in
            guard let error = error as? AudioDeviceError else { return false }
            return error.kind == .file && error.reason == "cannot create /nonexistent/dir/out.wav: No such file or directory"
        }
    }
}
