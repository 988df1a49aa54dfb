#if os(Linux)
import CV4L2
import Testing
import VideoCore

/// V4L2 capability parsing through the kernel header's `struct v4l2_capability`, and the device
/// list, which is empty on machines without a camera.
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
        #expect(camera.canCapture && camera.canStream && camera.capabilities == 0x0420_0001, "device_caps when CAP_DEVICE_CAPS is set")
        let metadata = try #require(VideoCaptureDevice(path: "/dev/video1", capability: Self.capability(
            driver: "uvcvideo", card: "Integrated Camera", bus: "usb", capabilities: 0x8420_0001 | 0x0080_0000, deviceCaps: 0x0480_0000)))
        #expect(!metadata.canCapture, "a metadata node is not a camera")
        #expect(VideoCaptureDevice(path: "/dev/video2", capability: [1, 2, 3]) == nil)
    }

    @Test func bytesAreReadThroughTheImportedStruct() throws {
        var capability = v4l2_capability()
        withUnsafeMutableBytes(of: &capability.driver) { $0.copyBytes(from: Array("vivid".utf8)) }
        withUnsafeMutableBytes(of: &capability.card) { $0.copyBytes(from: Array("Virtual Camera".utf8)) }
        withUnsafeMutableBytes(of: &capability.bus_info) { $0.copyBytes(from: Array("platform:vivid-000".utf8)) }
        capability.capabilities = UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)  // no CAP_DEVICE_CAPS
        let fromStruct = VideoCaptureDevice(path: "/dev/video3", capability: capability)
        let bytes = withUnsafeBytes(of: capability) { Array($0) }
        #expect(VideoCaptureDevice(path: "/dev/video3", capability: bytes) == fromStruct)
        #expect(fromStruct == VideoCaptureDevice(path: "/dev/video3", driver: "vivid", name: "Virtual Camera",
                                                 busInfo: "platform:vivid-000", capabilities: 0x0400_0001))
        // The hand-made layout the tests build agrees with the header's.
        #expect(MemoryLayout<v4l2_capability>.offset(of: \.capabilities) == 84)
        #expect(MemoryLayout<v4l2_capability>.offset(of: \.device_caps) == 88)
    }

    #if arch(x86_64) || arch(arm64)
    @Test func theShimMatchesTheKernelABI() {
        // linux/videodev2.h on x86_64 and arm64 (LP64, 64-bit time_t in struct timeval).
        #expect(MemoryLayout<v4l2_capability>.size == 104)
        #expect(MemoryLayout<v4l2_format>.size == 208)
        #expect(MemoryLayout<v4l2_buffer>.size == 88)
        #expect(MemoryLayout<v4l2_requestbuffers>.size == 20)
        #expect(MemoryLayout<v4l2_fmtdesc>.size == 64)
        #expect(MemoryLayout<v4l2_frmsizeenum>.size == 44)
        #expect(MemoryLayout<v4l2_streamparm>.size == 204)
        // _IOR('V', 0, struct v4l2_capability), _IOWR('V', 5, struct v4l2_format), … (the size is in the number).
        #expect(PARLEY_VIDIOC_QUERYCAP == 0x8068_5600 && PARLEY_VIDIOC_S_FMT == 0xC0D0_5605)
        #expect(PARLEY_VIDIOC_REQBUFS == 0xC014_5608 && PARLEY_VIDIOC_QBUF == 0xC058_560F && PARLEY_VIDIOC_DQBUF == 0xC058_5611)
        #expect(PARLEY_VIDIOC_STREAMON == 0x4004_5612 && PARLEY_VIDIOC_S_PARM == 0xC0CC_5616)
        #expect([CapturePixelFormat.i420, .yv12, .nv12, .yuyv].map(\.rawValue)
                == [PARLEY_V4L2_PIX_FMT_YUV420, PARLEY_V4L2_PIX_FMT_YVU420, PARLEY_V4L2_PIX_FMT_NV12, PARLEY_V4L2_PIX_FMT_YUYV])
    }
    #endif

    @Test func listsOnlyCaptureDevices() {
        let devices = VideoCaptureDevices.list()
        #expect(devices.allSatisfy { $0.canCapture && $0.path.hasPrefix("/dev/video") })
    }
}
#endif
