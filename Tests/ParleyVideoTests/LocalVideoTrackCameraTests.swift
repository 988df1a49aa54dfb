#if os(Linux)
import ParleyVideo
import Testing
import VideoCore

/// `LocalVideoTrack(device:)`, the seed's `CameraSource`: a node that is not a camera is an error.
@Suite struct LocalVideoTrackCameraTests {
    @Test func aNodeThatIsNotACameraThrows() {
        let device = VideoCaptureDevice(path: "/dev/null", driver: "", name: "null", busInfo: "", capabilities: 0x0400_0001)
        #expect(throws: VideoSourceError.capture(device: "/dev/null", message: "not a V4L2 device")) {
            try LocalVideoTrack(device: device)
        }
    }
}
#endif
