import Testing
import VideoCore

/// V4L2 capability parsing (linux/videodev2.h `struct v4l2_capability`) and the device list,
/// which is empty on machines without a camera.
@Suite struct VideoCaptureDeviceTests {
    static func capability(driver: String, card: String, bus: String, capabilities: UInt32, deviceCaps: UInt32) -> [UInt8] {
        func field(_ text: String, _ size: Int) -> [UInt8] { Array(Array(text.utf8).prefix(size - 1)) + Array(repeating: 0, count: size - min(text.utf8.count, size - 1)) }
        func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
        return field(driver, 16) + field(card, 32) + field(bus, 32) + word(0x0006_0800) + word(capabilities) + word(deviceCaps) + Array(repeating: 0, count: 12)
    }

    @Test func parsesACameraAndItsMetadataNode() throws {
        let camera = try #require(VideoCaptureDevice(path: "/dev/video0", capability: Self.capability(
            driver: "uvcvideo", card: "Integrated Camera: Integrated C", bus: "usb-0000:00:14.0-8",
            capabilities: 0x8420_0001 | 0x0080_0000, deviceCaps: 0x0420_0001)))
        #expect(camera.driver == "uvcvideo" && camera.name == "Integrated Camera: Integrated C" && camera.busInfo == "usb-0000:00:14.0-8")
        #expect(camera.canCapture && camera.capabilities == 0x0420_0001, "device_caps when CAP_DEVICE_CAPS is set")
        let metadata = try #require(VideoCaptureDevice(path: "/dev/video1", capability: Self.capability(
            driver: "uvcvideo", card: "Integrated Camera", bus: "usb", capabilities: 0x8420_0001 | 0x0080_0000, deviceCaps: 0x0480_0000)))
        #expect(!metadata.canCapture, "a metadata node is not a camera")
        #expect(VideoCaptureDevice(path: "/dev/video2", capability: [1, 2, 3]) == nil)
    }

    @Test func listsOnlyCaptureDevicesAndCaptureIsRefusedClearly() throws {
        let devices = VideoCaptureDevices.list()
        #expect(devices.allSatisfy { $0.canCapture && $0.path.hasPrefix("/dev/video") })
        let device = try #require(VideoCaptureDevice(path: "/dev/video9", capability: Self.capability(
            driver: "v4l2 loopback", card: "Dummy", bus: "platform:v4l2loopback-000", capabilities: 0x0000_0001, deviceCaps: 0)))
        let format = VideoFormat(width: 640, height: 360, frameRate: FrameRate(framesPerSecond: 30))
        #expect(throws: VideoSourceError.captureNotSupported(device: "/dev/video9")) { try VideoCaptureDevices.source(for: device, format: format) }
        #expect(VideoSourceError.captureNotSupported(device: "/dev/video9").description == "capture not supported for device /dev/video9")
    }
}
