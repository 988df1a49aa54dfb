import VideoCore

/// `--video camera`, `camera:N` (the Nth of `parley room devices`, from 0) or a V4L2 node
/// (`/dev/video0`): a camera, asked for `--video-size` and `--fps` (the driver may settle on
/// another size or rate; the description says which).
enum RoomCamera {
    /// Whether `--video` names a camera rather than a file or `testsrc`.
    static func names(_ video: String) -> Bool { video == "camera" || video.hasPrefix("camera:") || video.hasPrefix("/dev/") }

    /// The camera `video` names, opened at the requested size and rate, and its description.
    static func source(_ video: String, size: (Int, Int), framesPerSecond: Int) throws(UsageError) -> (any VideoSource, String) {
        let device: VideoCaptureDevice
        if video.hasPrefix("camera") {
            let devices = VideoCaptureDevices.list()
            let index = video == "camera" ? 0 : Int(video.dropFirst("camera:".count))
            guard let index, index >= 0 else { throw UsageError("--video camera:N needs a device number, got \(video)") }
            guard index < devices.count else {
                throw UsageError(devices.isEmpty ? "--video \(video): no video capture devices on this machine (parley room devices)"
                                                 : "--video \(video): only \(devices.count) capture device(s) (parley room devices)")
            }
            device = devices[index]
        } else {
            device = VideoCaptureDevice(path: video, driver: "", name: video, busInfo: "", capabilities: 0)
        }
        let requested = VideoFormat(width: size.0, height: size.1, frameRate: FrameRate(framesPerSecond: framesPerSecond))
        do throws(VideoSourceError) {
            let source = try VideoCaptureDevices.source(for: device, format: requested) { error in
                if let error { Output.error("camera \(device.path) stopped: \(error)") }
            }
            let name = (source as? V4L2CaptureSource).map { "\($0.device.name), \($0.pixelFormat) " } ?? ""
            return (source, "camera \(device.path) (\(name)\(source.format))")
        } catch {
            throw UsageError("--video \(video): \(error)")
        }
    }

    /// `parley room devices`: each camera, with the formats and sizes it offers.
    static func listDevices(_ args: [String]) throws(UsageError) -> Int32 {
        guard args.isEmpty else { throw UsageError("room devices takes no arguments, got \(args.joined(separator: " "))") }
        let devices = VideoCaptureDevices.list()
        if devices.isEmpty { print("no video capture devices") }
        for (index, device) in devices.enumerated() {
            print("camera:\(index) \(device)")
            for offer in VideoCaptureDevices.offers(of: device) {
                let convertible = CapturePixelFormat(rawValue: offer.fourcc) != nil
                print("    \(offer)" + (convertible ? "" : " (not supported)"))
            }
        }
        return 0
    }
}
