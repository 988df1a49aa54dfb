import CVPX
import VideoCore

/// A libvpx failure, with libvpx's own message.
public struct VPXError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ what: String, _ code: vpx_codec_err_t, _ ctx: UnsafeMutablePointer<vpx_codec_ctx_t>? = nil) {
        let detail = ctx.flatMap { vpx_codec_error_detail($0) }.map { String(cString: $0) }
        description = "vp8: \(what): \(String(cString: vpx_codec_err_to_string(code)))" + (detail.map { " (\($0))" } ?? "")
    }
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

    /// Encodes one frame (of this encoder's size); usually one output frame, none when the rate
    /// controller drops it.
    public func encode(_ frame: I420Frame, keyFrame: Bool = false) throws(VPXError) -> [EncodedVP8Frame] {
        precondition(frame.width == width && frame.height == height, "frames of the encoder's size")
        var y = frame.y, u = frame.u, v = frame.v
        let result: vpx_codec_err_t = y.withUnsafeMutableBufferPointer { yp in
            u.withUnsafeMutableBufferPointer { up in
                v.withUnsafeMutableBufferPointer { vp in
                    vpx_img_wrap(&image, VPX_IMG_FMT_I420, UInt32(width), UInt32(height), 1, yp.baseAddress)
                    image.planes.0 = yp.baseAddress
                    image.planes.1 = up.baseAddress
                    image.planes.2 = vp.baseAddress
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
        let result = data.withUnsafeBufferPointer { vpx_codec_decode(&context, $0.baseAddress, UInt32($0.count), nil, 0) }
        guard result == VPX_CODEC_OK else { throw VPXError("decode", result, &context) }
        var iterator: vpx_codec_iter_t?
        guard let image = vpx_codec_get_frame(&context, &iterator) else { return nil }
        let w = Int(image.pointee.d_w), h = Int(image.pointee.d_h)
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        func plane(_ index: Int, _ pw: Int, _ ph: Int) -> [UInt8] {
            let (base, stride): (UnsafeMutablePointer<UInt8>?, Int32) = switch index {
            case 0: (image.pointee.planes.0, image.pointee.stride.0)
            case 1: (image.pointee.planes.1, image.pointee.stride.1)
            default: (image.pointee.planes.2, image.pointee.stride.2)
            }
            guard let base else { return [UInt8](repeating: 0, count: pw * ph) }
            var out = [UInt8](repeating: 0, count: pw * ph)
            for row in 0..<ph {
                for col in 0..<pw { out[row * pw + col] = base[row * Int(stride) + col] }
            }
            return out
        }
        return I420Frame(width: w, height: h, y: plane(0, w, h), u: plane(1, cw, ch), v: plane(2, cw, ch), timestamp: timestamp)
    }
}
