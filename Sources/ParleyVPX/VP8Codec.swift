import CVPX
import VideoCore
import VP8

/// A libvpx failure, with libvpx's own message.
public struct VPXError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ what: String, _ code: vpx_codec_err_t, _ ctx: UnsafeMutablePointer<vpx_codec_ctx_t>? = nil) {
        let detail = ctx.flatMap { vpx_codec_error_detail($0) }.map { String(cString: $0) }
        description = "vp8: \(what): \(String(cString: vpx_codec_err_to_string(code)))" + (detail.map { " (\($0))" } ?? "")
    }

    /// A failure found before libvpx was called (a frame of the wrong size, a picture too large).
    init(_ description: String) { self.description = "vp8: " + description }
}

/// One VP8 frame out of the encoder.
public struct EncodedVP8Frame: Sendable, Equatable {
    public var data: [UInt8]
    public var isKeyFrame: Bool
    /// The input frame's 90 kHz timestamp.
    public var timestamp: UInt32
}

/// Real-time VP8 encoding with libvpx (the only importer of libvpx): constant bitrate, no frame
/// lag, error-resilient (each frame decodable after a loss once a key frame was seen), a key frame
/// on request and at most every `keyFrameInterval` frames. Not thread-safe: one owner.
public final class VP8Encoder {
    public let width: Int
    public let height: Int
    private var context = vpx_codec_ctx_t()
    private var config = vpx_codec_enc_cfg_t()
    private var image = vpx_image_t()
    private var frameCount: Int64 = 0

    /// - Parameters:
    ///   - bitrate: target bits per second.
    ///   - framesPerSecond: the input rate, for rate control.
    ///   - cpuUsed: libvpx's speed setting for real time (−16…16; higher is faster).
    public init(width: Int, height: Int, bitrate: Int = 500_000, framesPerSecond: Int = 30,
                keyFrameInterval: Int = 3000, cpuUsed: Int = 8) throws(VPXError) {
        self.width = width
        self.height = height
        var result = parley_vpx_enc_config_default(&config)
        guard result == VPX_CODEC_OK else { throw VPXError("config", result) }
        config.g_w = UInt32(width)
        config.g_h = UInt32(height)
        config.g_timebase = vpx_rational(num: 1, den: 90_000)
        config.rc_target_bitrate = UInt32(max(1, bitrate / 1000))
        config.rc_end_usage = VPX_CBR
        config.g_lag_in_frames = 0
        config.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        config.g_threads = 1
        config.kf_mode = VPX_KF_AUTO
        config.kf_max_dist = UInt32(keyFrameInterval)
        config.rc_min_quantizer = 2
        config.rc_max_quantizer = 56
        config.rc_undershoot_pct = 100
        config.rc_overshoot_pct = 15
        config.rc_buf_initial_sz = 500
        config.rc_buf_optimal_sz = 600
        config.rc_buf_sz = 1000
        _ = framesPerSecond
        result = parley_vpx_enc_init(&context, &config)
        guard result == VPX_CODEC_OK else { throw VPXError("encoder init", result) }
        _ = parley_vpx_set_cpu_used(&context, Int32(cpuUsed))
        _ = parley_vpx_set_static_threshold(&context, 1)
        _ = parley_vpx_set_noise_sensitivity(&context, 0)
    }

    deinit { vpx_codec_destroy(&context) }

    /// Changes the target bitrate (bits per second) from the next frame on.
    public func setBitrate(_ bitrate: Int) throws(VPXError) {
        config.rc_target_bitrate = UInt32(max(1, bitrate / 1000))
        let result = vpx_codec_enc_config_set(&context, &config)
        guard result == VPX_CODEC_OK else { throw VPXError("bitrate", result, &context) }
    }

    /// Encodes one frame (of this encoder's size; another size throws); usually one output
    /// frame, none when the rate controller drops it. libvpx reads the planes in place (no copy).
    public func encode(_ frame: I420Frame, keyFrame: Bool = false) throws(VPXError) -> [EncodedVP8Frame] {
        guard frame.width == width && frame.height == height else {
            throw VPXError("frame of \(frame.width)x\(frame.height) for a \(width)x\(height) encoder")
        }
        let result: vpx_codec_err_t = frame.y.withUnsafeBufferPointer { yp in
            frame.u.withUnsafeBufferPointer { up in
                frame.v.withUnsafeBufferPointer { vp in
                    // libvpx takes mutable plane pointers but only reads the source image.
                    vpx_img_wrap(&image, VPX_IMG_FMT_I420, UInt32(width), UInt32(height), 1, UnsafeMutablePointer(mutating: yp.baseAddress))
                    image.planes.0 = UnsafeMutablePointer(mutating: yp.baseAddress)
                    image.planes.1 = UnsafeMutablePointer(mutating: up.baseAddress)
                    image.planes.2 = UnsafeMutablePointer(mutating: vp.baseAddress)
                    image.stride.0 = Int32(width)
                    image.stride.1 = Int32(frame.chromaWidth)
                    image.stride.2 = Int32(frame.chromaWidth)
                    let flags: vpx_enc_frame_flags_t = keyFrame ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0
                    frameCount += 1
                    return vpx_codec_encode(&context, &image, vpx_codec_pts_t(frame.timestamp), 3000, flags,
                                            UInt(VPX_DL_REALTIME))
                }
            }
        }
        guard result == VPX_CODEC_OK else { throw VPXError("encode", result, &context) }
        var out: [EncodedVP8Frame] = []
        var iterator: vpx_codec_iter_t?
        while let packet = vpx_codec_get_cx_data(&context, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let f = packet.pointee.data.frame
            let bytes = UnsafeRawBufferPointer(start: f.buf, count: f.sz)
            out.append(EncodedVP8Frame(data: Array(bytes), isKeyFrame: f.flags & UInt32(VPX_FRAME_IS_KEY) != 0,
                                       timestamp: frame.timestamp))
        }
        return out
    }
}

/// VP8 decoding with libvpx. Not thread-safe: one owner.
public final class VP8Decoder {
    private var context = vpx_codec_ctx_t()

    public init() throws(VPXError) {
        let result = parley_vpx_dec_init(&context)
        guard result == VPX_CODEC_OK else { throw VPXError("decoder init", result) }
    }

    deinit { vpx_codec_destroy(&context) }

    /// Decodes one whole frame; the picture, or nil when the frame shows nothing. A corrupt or
    /// truncated frame throws (decode the next key frame to recover).
    public func decode(_ data: [UInt8], timestamp: UInt32 = 0) throws(VPXError) -> I420Frame? {
        var frame = I420Frame(width: 1, height: 1)
        return try decode(data, into: &frame, timestamp: timestamp) ? frame : nil
    }

    /// Decodes one whole frame into `frame`, reusing its planes while the size stays (a size
    /// change resizes it); false when the frame shows nothing. A key frame larger than
    /// `VideoLimits` throws before libvpx allocates for it.
    public func decode(_ data: [UInt8], into frame: inout I420Frame, timestamp: UInt32 = 0) throws(VPXError) -> Bool {
        if let size = data.withUnsafeBytes({ VP8FrameHeader.keyFrameSize(in: $0) }),
           !VideoLimits.accepts(width: Int(size.width), height: Int(size.height)) {
            throw VPXError("key frame of \(size.width)x\(size.height) over the size limit")
        }
        let result = data.withUnsafeBufferPointer { vpx_codec_decode(&context, $0.baseAddress, UInt32($0.count), nil, 0) }
        guard result == VPX_CODEC_OK else { throw VPXError("decode", result, &context) }
        var iterator: vpx_codec_iter_t?
        guard let image = vpx_codec_get_frame(&context, &iterator) else { return false }
        let w = Int(image.pointee.d_w), h = Int(image.pointee.d_h)
        guard w > 0, h > 0 else { return false }
        frame.resize(width: w, height: h)
        frame.timestamp = timestamp
        let planes = image.pointee.planes, strides = image.pointee.stride
        Self.copy(planes.0, Int(strides.0), w, h, into: &frame.y)
        Self.copy(planes.1, Int(strides.1), frame.chromaWidth, frame.chromaHeight, into: &frame.u)
        Self.copy(planes.2, Int(strides.2), frame.chromaWidth, frame.chromaHeight, into: &frame.v)
        return true
    }

    /// Copies one plane row by row out of libvpx's padded buffer.
    private static func copy(_ base: UnsafeMutablePointer<UInt8>?, _ stride: Int, _ width: Int, _ height: Int, into plane: inout [UInt8]) {
        plane.withUnsafeMutableBufferPointer { out in
            guard let base, let destination = out.baseAddress else { return }
            for row in 0..<height { (destination + row * width).update(from: base + row * stride, count: width) }
        }
    }
}
