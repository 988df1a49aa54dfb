import VideoCore

extension LocalVideoTrack {
    /// A track from a camera, what the seed's `CameraSource` + `LocalVideoTrack(source:)` do:
    /// `device` from `VideoCaptureDevices.list()`, captured (V4L2 on Linux, AVFoundation on
    /// macOS) at `format` or the nearest the camera takes (`source.format` says which).
    /// Throws when the camera cannot be opened or offers no format Parley converts.
    public convenience init(name: String = "camera", device: VideoCaptureDevice,
                            format: VideoFormat = VideoFormat(width: 640, height: 480, frameRate: FrameRate(framesPerSecond: 30)),
                            enabled: Bool = true) throws(VideoSourceError) {
        self.init(name: name, source: try VideoCaptureDevices.source(for: device, format: format), enabled: enabled)
    }
}
