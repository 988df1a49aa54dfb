import CNGHTTP2
import Testing
@testable import ParleyNet

/// One HTTP/2 frame as it travels (RFC 9113 §4.1), for reading what the client core writes and
/// scripting what a server answers, including frames a well-behaved library would never send.
struct TestFrame: Equatable, CustomStringConvertible {
    var type: UInt8
    var flags: UInt8 = 0
    var streamID: UInt32
    var payload: [UInt8] = []

    static let endStream: UInt8 = 0x1, ack: UInt8 = 0x1, endHeaders: UInt8 = 0x4, padded: UInt8 = 0x8, priority: UInt8 = 0x20

    var serialized: [UInt8] {
        let length = payload.count
        return [UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
                type, flags] + Self.octets(streamID) + payload
    }

    var description: String { "type \(type) flags \(flags) stream \(streamID) length \(payload.count)" }

    static func octets(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32($0))) } }

    static func data(_ stream: UInt32, _ bytes: [UInt8], end: Bool = true) -> TestFrame {
        TestFrame(type: 0, flags: end ? endStream : 0, streamID: stream, payload: bytes)
    }

    static func headers(_ stream: UInt32, _ block: [UInt8], end: Bool = false, endHeaders: Bool = true) -> TestFrame {
        TestFrame(type: 1, flags: (end ? endStream : 0) | (endHeaders ? Self.endHeaders : 0), streamID: stream, payload: block)
    }

    static func rstStream(_ stream: UInt32, _ code: HTTP2ErrorCode) -> TestFrame {
        TestFrame(type: 3, streamID: stream, payload: octets(code.rawValue))
    }

    /// SETTINGS with (identifier, value) parameters (§6.5.2).
    static func settings(_ parameters: [(UInt16, UInt32)] = []) -> TestFrame {
        TestFrame(type: 4, streamID: 0, payload: parameters.flatMap { [UInt8($0.0 >> 8), UInt8($0.0 & 0xFF)] + octets($0.1) })
    }

    static let settingsAck = TestFrame(type: 4, flags: ack, streamID: 0)
    static let enablePush: UInt16 = 2, maxConcurrentStreams: UInt16 = 3, initialWindowSize: UInt16 = 4, maxHeaderListSize: UInt16 = 6

    static func pushPromise(_ stream: UInt32, promised: UInt32, block: [UInt8]) -> TestFrame {
        TestFrame(type: 5, flags: endHeaders, streamID: stream, payload: octets(promised) + block)
    }

    static func ping(_ opaque: UInt64, ack: Bool = false) -> TestFrame {
        TestFrame(type: 6, flags: ack ? Self.ack : 0, streamID: 0,
                  payload: octets(UInt32(truncatingIfNeeded: opaque >> 32)) + octets(UInt32(truncatingIfNeeded: opaque)))
    }

    static func goAway(lastStreamID: UInt32, _ code: HTTP2ErrorCode) -> TestFrame {
        TestFrame(type: 7, streamID: 0, payload: octets(lastStreamID) + octets(code.rawValue))
    }

    static func windowUpdate(_ stream: UInt32, _ increment: UInt32) -> TestFrame {
        TestFrame(type: 8, streamID: stream, payload: octets(increment))
    }

    static func continuation(_ stream: UInt32, _ block: [UInt8], endHeaders: Bool) -> TestFrame {
        TestFrame(type: 9, flags: endHeaders ? Self.endHeaders : 0, streamID: stream, payload: block)
    }

    /// GOAWAY's error code, if this is one.
    var goAwayCode: HTTP2ErrorCode? {
        guard type == 7, payload.count >= 8 else { return nil }
        return HTTP2ErrorCode(rawValue: payload[4..<8].reduce(0) { $0 << 8 | UInt32($1) })
    }
}

/// The server side of a scripted exchange: splits what the client core writes into frames and
/// encodes answers, with libnghttp2's HPACK (nghttp2_hd) in each direction.
final class ScriptedServer {
    private var deflater: OpaquePointer?
    private var inflater: OpaquePointer?
    private var preface: [UInt8] = []
    private var pending: [UInt8] = []

    static let connectionPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    init() {
        nghttp2_hd_deflate_new(&deflater, 4096)
        nghttp2_hd_inflate_new(&inflater)
    }

    deinit {
        nghttp2_hd_deflate_del(deflater)
        nghttp2_hd_inflate_del(inflater)
    }

    /// The frames in `bytes`, after checking the connection preface once.
    func read(_ bytes: [UInt8]) -> [TestFrame] {
        var bytes = bytes[...]
        if preface.count < 24 {
            let take = min(24 - preface.count, bytes.count)
            preface += bytes.prefix(take)
            bytes = bytes.dropFirst(take)
            if preface.count == 24 { #expect(preface == Self.connectionPreface) }
        }
        pending += bytes
        var frames: [TestFrame] = []
        while pending.count >= 9 {
            let length = Int(pending[0]) << 16 | Int(pending[1]) << 8 | Int(pending[2])
            guard pending.count >= 9 + length else { break }
            let streamID = pending[5..<9].reduce(0) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
            frames.append(TestFrame(type: pending[3], flags: pending[4], streamID: streamID, payload: Array(pending[9..<9 + length])))
            pending.removeFirst(9 + length)
        }
        return frames
    }

    /// The decoded fields of a HEADERS frame that ends its block, as "name: value".
    func fields(_ frame: TestFrame) -> [String] {
        guard frame.type == 1 else { return [] }
        var block = frame.payload[...]
        if frame.flags & TestFrame.padded != 0, let padding = block.first {
            block = block.dropFirst().dropLast(Int(padding))
        }
        if frame.flags & TestFrame.priority != 0 { block = block.dropFirst(5) }
        var fields: [String] = []
        Array(block).withUnsafeBufferPointer { input in
            var offset = 0
            while true {
                var nv = nghttp2_nv()
                var flags: Int32 = 0
                let used = nghttp2_hd_inflate_hd2(inflater, &nv, &flags, input.baseAddress! + offset, input.count - offset, 1)
                guard used >= 0 else {
                    Issue.record("HPACK error \(used)")
                    return
                }
                offset += used
                if flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) != 0 {
                    fields.append(String(decoding: UnsafeBufferPointer(start: nv.name, count: nv.namelen), as: UTF8.self) + ": "
                                  + String(decoding: UnsafeBufferPointer(start: nv.value, count: nv.valuelen), as: UTF8.self))
                }
                if flags & Int32(NGHTTP2_HD_INFLATE_FINAL.rawValue) != 0 {
                    nghttp2_hd_inflate_end_headers(inflater)
                    return
                }
            }
        }
        return fields
    }

    /// A header block for `fields`, from the server's deflater.
    func encode(_ fields: [(String, String)]) -> [UInt8] {
        var storage: [UInt8] = [0]
        var offsets: [(name: Int, value: Int)] = []
        for (name, value) in fields {
            offsets.append((storage.count, storage.count + name.utf8.count))
            storage += Array(name.utf8) + Array(value.utf8)
        }
        return storage.withUnsafeMutableBufferPointer { bytes in
            var nvs = fields.indices.map { i in
                nghttp2_nv(name: bytes.baseAddress! + offsets[i].name, value: bytes.baseAddress! + offsets[i].value,
                           namelen: fields[i].0.utf8.count, valuelen: fields[i].1.utf8.count,
                           flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            let bound = nghttp2_hd_deflate_bound(deflater, &nvs, nvs.count)
            var out = [UInt8](repeating: 0, count: bound)
            let count = nghttp2_hd_deflate_hd(deflater, &out, bound, &nvs, nvs.count)
            return Array(out.prefix(max(0, count)))
        }
    }

    func response(_ stream: UInt32, status: Int = 200, fields: [(String, String)] = [], endStream: Bool = false) -> [UInt8] {
        TestFrame.headers(stream, encode([(":status", String(status))] + fields), end: endStream).serialized
    }
}

/// Events as text, since they carry errors.
func describe(_ events: [HTTP2ClientCore.Event]) -> [String] {
    events.map { event in
        switch event {
        case .response(let id, let r): "response \(id) \(r.status) \(r.bodyText)"
        case .failure(let id, let error): "failure \(id) \(error)"
        case .retry(let id, _): "retry \(id)"
        case .close: "close"
        }
    }
}
