import Foundation
import ParleyTestSupport
import Testing

/// `parley demo rooms`, shortened: three participants in a room on an in-process server, their
/// figures, and a mosaic of what carol saw as a PNG that decodes to the expected size (her two
/// peers' 640x360 pictures and her own, side by side with 8-pixel gaps).
@Suite(.tags(.process)) struct RoomsDemoTests {
    @Test(.timeLimit(.minutes(1))) func demoWritesCarolsMosaic() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("parley-demo-rooms-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let demo = try CLIProcess.start(try CLITestBed.parley, ["demo", "rooms", "--out", out, "--seconds", "2"])
        let status = await demo.exitStatus(timeout: .seconds(30))
        #expect(status == 0, "\(demo.output)")
        for line in ["carol: connected to room demo-rooms", "first frame of alice's camera", "dominant speaker: alice",
                     "carol: join → roomDidConnect", "CPU of this process", "carol-mosaic.png"] {
            #expect(demo.output.contains(line), "the demo's output lacks \(line): \(demo.output)")
        }
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out + "/carol-mosaic.png")))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "not a PNG")
        try #require(png.count > 33)
        #expect(Array(png[12..<16]) == Array("IHDR".utf8))
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 3 * 640 + 2 * 8 && height == 360, "the mosaic is \(width)x\(height)")
    }
}
