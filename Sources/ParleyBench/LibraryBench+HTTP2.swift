import CNGHTTP2
import Foundation
import HTTP2Wire

/// Our HTTP/2 and HPACK (HTTP2Wire, for APNs) beside libnghttp2, on an APNs VoIP push and on
/// hostile header blocks. Part of `parley-bench libraries`; figures in docs/ARCHITECTURE.md.
extension LibraryBench {
    static func http2() {
        hpack()
        requestResponse()
        hostileHPACK()
        hostileFrames()
    }

    // MARK: The APNs request

    /// A VoIP push's request header list, as HTTP2ClientCore.requestFields builds it.
    static let apnsFields: [HPACKHeaderField] = {
        let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6IjJYOFI0UDlRN0sifQ.eyJpc3MiOiJBQkMxMjNERUZHIiwiaWF0IjoxNzY0NjM2MDAwfQ."
            + String(repeating: "Qx7vN2kLp9sT4wYb", count: 5) + "Qx7vN2"
        return [(":method", "POST"), (":scheme", "https"), (":authority", "api.push.apple.com"),
                (":path", "/3/device/" + String(repeating: "a1b2c3d4", count: 8)),
                ("authorization", "bearer " + jwt), ("apns-topic", "com.example.parley.voip"),
                ("apns-push-type", "voip"), ("apns-priority", "10"), ("apns-expiration", "0"),
                ("content-type", "application/json"), ("content-length", String(apnsBody.count))]
            .map { HPACKHeaderField(name: $0.0, value: $0.1) }
    }()

    static let apnsBody = Array(#"{"aps":{},"twi_message_type":"twilio.voice.call","twi_call_sid":"CA0123456789abcdef0123456789abcdef","twi_account_sid":"AC0123456789abcdef0123456789abcdef","twi_from":"client:alice","twi_to":"client:bob","twi_message_id":"NOabcdef"}"#.utf8)

    /// The same list as nghttp2_nv values; the bytes live as long as the process.
    nonisolated(unsafe) static let apnsNV: UnsafeMutableBufferPointer<nghttp2_nv> = {
        let nvs = UnsafeMutableBufferPointer<nghttp2_nv>.allocate(capacity: apnsFields.count)
        for (i, field) in apnsFields.enumerated() {
            nvs[i] = nghttp2_nv(name: copy(field.name), value: copy(field.value), namelen: field.name.utf8.count,
                                valuelen: field.value.utf8.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        return nvs
    }()

    nonisolated(unsafe) static let apnsBodyBytes: UnsafeMutableBufferPointer<UInt8> = {
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: apnsBody.count)
        _ = bytes.initialize(from: apnsBody)
        return bytes
    }()

    static func copy(_ string: String) -> UnsafeMutablePointer<UInt8> {
        let bytes = Array(string.utf8)
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
        pointer.initialize(from: bytes, count: bytes.count)
        return pointer
    }

    // MARK: HPACK encode + decode

    static func hpack() {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        var firstEncoder = HPACKEncoder()
        let firstBlock = firstEncoder.encode(apnsFields)
        measure("HPACK APNs headers, own, one connection") {
            _ = try? decoder.decode(encoder.encode(apnsFields))
        }
        // nghttp2 never indexes `authorization` (RFC 7541 §7.1.3); the same choice on our side:
        let neverIndexed = apnsFields.map { $0.name == "authorization" ? HPACKHeaderField(name: $0.name, value: $0.value, indexing: .never) : $0 }
        var encoderNever = HPACKEncoder()
        var decoderNever = HPACKDecoder()
        measure("HPACK APNs headers, own, authorization never indexed") {
            _ = try? decoderNever.decode(encoderNever.encode(neverIndexed))
        }
        let nghttp2 = NGHPACK()
        measure("HPACK APNs headers, nghttp2_hd, one connection") {
            _ = nghttp2.inflate(nghttp2.deflate(apnsNV))
        }
        measure("HPACK APNs headers, own, new connection each") {
            var encoder = HPACKEncoder()
            var decoder = HPACKDecoder()
            _ = try? decoder.decode(encoder.encode(apnsFields))
        }
        measure("HPACK APNs headers, nghttp2_hd, new each") {
            let fresh = NGHPACK()
            _ = fresh.inflate(fresh.deflate(apnsNV))
        }
        print("APNs header block: own \(firstBlock.count) B first, \(encoder.encode(apnsFields).count) B repeated; "
              + "nghttp2 \(NGHPACK().deflate(apnsNV).count) B first, \(nghttp2.deflate(apnsNV).count) B repeated")
    }

    // MARK: Request out, response in (HEADERS + DATA), one connection

    /// A 400 response: HEADERS (:status 400, apns-id) and DATA with the reason, both on stream 1.
    static let apnsResponse: [UInt8] = {
        var block: [UInt8] = [0x8D]   // :status 400, static index 13 (RFC 7541 Appendix A)
        let id = Array("8F4B2D1C-0A9E-4C3B-9D8E-7F6A5B4C3D2E".utf8)
        block += [0x00, 7] + Array("apns-id".utf8) + [UInt8(id.count)] + id
        let reason = Array(#"{"reason":"BadDeviceToken"}"#.utf8)
        return HTTP2Frame(streamID: 1, payload: .headers(HTTP2HeadersPayload(headerBlock: block))).serialized
            + HTTP2Frame(streamID: 1, payload: .data(reason, endStream: true, padding: nil)).serialized
    }()

    /// Frames of `bytes` renumbered to `streamID` (the 4 octets after type and flags, RFC 9113 §4.1).
    static func renumber(_ bytes: inout [UInt8], to streamID: UInt32) {
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            for i in 0..<4 { bytes[offset + 5 + i] = UInt8(truncatingIfNeeded: streamID >> (24 - 8 * UInt32(i))) }
            offset += 9 + length
        }
    }

    static func requestResponse() {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        var frames = HTTP2FrameDecoder()
        var response = apnsResponse
        var streamID: UInt32 = 1
        var out: [UInt8] = []
        measure("APNs request+response, own HTTP2Wire") {
            out.removeAll(keepingCapacity: true)
            for frame in HTTP2Frame.headerFrames(streamID: streamID, headerBlock: encoder.encode(apnsFields),
                                                 endStream: false, maxFrameSize: 16_384) {
                frame.serialize(into: &out)
            }
            HTTP2Frame(streamID: streamID, payload: .data(apnsBody, endStream: true, padding: nil)).serialize(into: &out)
            renumber(&response, to: streamID)
            frames.append(response)
            while let frame = try? frames.next() {
                if case .headers(let h) = frame.payload { _ = try? decoder.decode(h.headerBlock) }
            }
            streamID += 2
        }
        let client = NGClient()
        measure("APNs request+response, nghttp2 session") {
            let stream = client.submit()
            client.drainOutput()
            renumber(&response, to: UInt32(stream))
            client.receive(response)
        }
        print("nghttp2 session: \(client.closedStreams) streams closed, last status fields \(client.fields.count), "
              + "body \(client.body.count) B, errors \(client.errors)")
    }

    // MARK: Hostile header blocks

    static func integer(_ value: Int, prefixBits: Int, flags: UInt8) -> [UInt8] {
        let max = (1 << prefixBits) - 1
        guard value >= max else { return [flags | UInt8(value)] }
        var out = [flags | UInt8(max)]
        var rest = value - max
        while rest >= 128 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
        return out
    }

    static let hostileBlocks: [(String, [UInt8])] = {
        let bigEntry = [0x40, 1, UInt8(ascii: "x")] + integer(4000, prefixBits: 7, flags: 0)
            + [UInt8](repeating: UInt8(ascii: "a"), count: 4000)
        return [
            ("table size update to 65,536 (limit 4,096)", integer(65_536, prefixBits: 5, flags: 0x20) + [0x82]),
            ("100,000 table size updates, then a field", [UInt8](repeating: 0x20, count: 100_000) + [0x82]),
            ("literal claiming a 2^31-octet value", [0x00, 1, UInt8(ascii: "x")] + integer(1 << 31, prefixBits: 7, flags: 0)
                + [UInt8](repeating: 0x61, count: 64)),
            ("1,000 octets of Huffman garbage (0xFF)", [0x00, 1, UInt8(ascii: "x")] + integer(1000, prefixBits: 7, flags: 0x80)
                + [UInt8](repeating: 0xFF, count: 1000)),
            ("bomb: 4 KB entry indexed 16,000 times", bigEntry + [UInt8](repeating: 0xBE, count: 16_000)),
        ]
    }()

    static func hostileHPACK() {
        for (name, block) in hostileBlocks {
            var decoder = HPACKDecoder()
            let start = ContinuousClock.now
            let own: String
            do {
                let fields = try decoder.decode(block)
                own = "accepted, \(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }) B delivered"
            } catch {
                own = "refused (\(error))"
            }
            let ownTime = ContinuousClock.now - start
            let library = NGHPACK()
            let libStart = ContinuousClock.now
            let result = library.inflate(block)
            let libTime = ContinuousClock.now - libStart
            let lib = result.error == 0 ? "accepted, \(result.deliveredBytes) B delivered"
                : "refused (\(String(cString: nghttp2_strerror(Int32(result.error)))))"
            print("\(name) (\(block.count) B): own \(own) in \(ownTime); nghttp2_hd \(lib) in \(libTime)")
        }
    }

    /// The bomb and a CONTINUATION flood through each client's receive path (frames + HPACK).
    static func hostileFrames() {
        let bomb = hostileBlocks.last!.1
        let bombFrame = HTTP2Frame.headerFrames(streamID: 1, headerBlock: bomb, endStream: false, maxFrameSize: 16_384)
            .flatMap(\.serialized)
        var flood = HTTP2Frame(streamID: 1, payload: .headers(HTTP2HeadersPayload(
            headerBlock: [0x88], endStream: false, endHeaders: false))).serialized
        for _ in 0..<1000 {
            flood += HTTP2Frame(streamID: 1, payload: .continuation(headerBlock: [UInt8](repeating: 0x88, count: 1024),
                                                                    endHeaders: false)).serialized
        }
        for (name, bytes) in [("HPACK bomb in HEADERS + CONTINUATION", bombFrame), ("1,000 CONTINUATIONs of 1 KB", flood)] {
            var frames = HTTP2FrameDecoder(maxHeaderBlockSize: 64 * 1024)
            var decoder = HPACKDecoder()
            let start = ContinuousClock.now
            var own = "waiting for more"
            frames.append(bytes)
            do {
                while let frame = try frames.next() {
                    if case .headers(let h) = frame.payload {
                        let fields = try decoder.decode(h.headerBlock)
                        own = "accepted, \(fields.count) fields"
                    }
                }
            } catch {
                own = "refused (\(error))"
            }
            let ownTime = ContinuousClock.now - start
            var lines: [String] = []
            for limit in [nil, 64 * 1024] {
                let client = NGClient(headerListLimit: limit)
                let stream = client.submit()
                client.drainOutput()
                var renumbered = bytes
                renumber(&renumbered, to: UInt32(stream))
                let libStart = ContinuousClock.now
                let consumed = client.receive(renumbered)
                let libTime = ContinuousClock.now - libStart
                let lib = consumed < 0 ? "refused (\(String(cString: nghttp2_strerror(Int32(consumed)))))"
                    : "consumed \(consumed) B, \(client.headerBytes) B of fields delivered, stream errors \(client.errors), "
                        + (client.isOpen ? "connection open" : "connection closed")
                lines.append("nghttp2 session\(limit == nil ? "" : " with a 64 KiB on_header limit") \(lib) in \(libTime)")
            }
            print("\(name) (\(bytes.count) B): own \(own) in \(ownTime); " + lines.joined(separator: "; "))
        }
    }
}

/// One nghttp2 HPACK deflater and inflater pair (one connection's two directions).
final class NGHPACK {
    private var deflater: OpaquePointer?
    private var inflater: OpaquePointer?
    private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 8192)

    init() {
        nghttp2_hd_deflate_new(&deflater, 4096)
        nghttp2_hd_inflate_new(&inflater)
    }

    deinit {
        nghttp2_hd_deflate_del(deflater)
        nghttp2_hd_inflate_del(inflater)
        buffer.deallocate()
    }

    func deflate(_ nvs: UnsafeMutableBufferPointer<nghttp2_nv>) -> [UInt8] {
        let count = nghttp2_hd_deflate_hd(deflater, buffer, 8192, nvs.baseAddress, nvs.count)
        return count < 0 ? [] : Array(UnsafeBufferPointer(start: buffer, count: count))
    }

    /// Decodes one block into fields as a client keeps them (Swift strings); `error` is nghttp2's.
    func inflate(_ block: [UInt8]) -> (fields: [HPACKHeaderField], deliveredBytes: Int, error: Int) {
        var fields: [HPACKHeaderField] = []
        var delivered = 0
        let emit = Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue), final = Int32(NGHTTP2_HD_INFLATE_FINAL.rawValue)
        let error: Int = block.withUnsafeBufferPointer { input in
            var offset = 0
            while true {
                var nv = nghttp2_nv()
                var flags: Int32 = 0
                let used = nghttp2_hd_inflate_hd2(inflater, &nv, &flags, input.baseAddress! + offset, input.count - offset, 1)
                if used < 0 { return used }
                offset += used
                if flags & emit != 0 {
                    delivered += nv.namelen + nv.valuelen
                    // Keep what a client keeps, within the same 64 KiB the own decoder allows.
                    if delivered <= 64 * 1024 {
                        fields.append(HPACKHeaderField(name: String(decoding: UnsafeBufferPointer(start: nv.name, count: nv.namelen), as: UTF8.self),
                                                       value: String(decoding: UnsafeBufferPointer(start: nv.value, count: nv.valuelen), as: UTF8.self)))
                    }
                }
                if flags & final != 0 {
                    nghttp2_hd_inflate_end_headers(inflater)
                    return 0
                }
                if flags & emit == 0 && offset == input.count { return 0 }
            }
        }
        return (fields, delivered, error)
    }
}

/// An nghttp2 client session driven from memory (nghttp2 does no I/O), as an APNs client would use it.
final class NGClient {
    private var session: OpaquePointer?
    var fields: [HPACKHeaderField] = []
    var body: [UInt8] = []
    var headerBytes = 0
    var closedStreams = 0
    var errors = 0
    /// Field octets per block after which on_header resets the stream (nil: no limit).
    let headerListLimit: Int?

    init(headerListLimit: Int? = nil) {
        self.headerListLimit = headerListLimit
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, _, name, nameLength, value, valueLength, _, user in
            let client = Unmanaged<NGClient>.fromOpaque(user!).takeUnretainedValue()
            client.headerBytes += nameLength + valueLength
            // What the move must add: nghttp2 does not enforce SETTINGS_MAX_HEADER_LIST_SIZE on receipt.
            if let limit = client.headerListLimit, client.headerBytes > limit {
                return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue   // resets this stream only
            }
            if client.headerBytes <= 64 * 1024 {
                client.fields.append(HPACKHeaderField(name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                                                      value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, _, user in
            let client = Unmanaged<NGClient>.fromOpaque(user!).takeUnretainedValue()
            client.fields.removeAll(keepingCapacity: true)
            client.body.removeAll(keepingCapacity: true)
            client.headerBytes = 0
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, _, data, length, user in
            Unmanaged<NGClient>.fromOpaque(user!).takeUnretainedValue().body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, _, errorCode, user in
            let client = Unmanaged<NGClient>.fromOpaque(user!).takeUnretainedValue()
            client.closedStreams += 1
            if errorCode != 0 { client.errors += 1 }
            return 0
        }
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        nghttp2_session_callbacks_del(callbacks)
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil, 0)
        drainOutput()
        // The server's SETTINGS (a client's first received frame must be one) and a large connection window.
        receive(HTTP2Frame(streamID: 0, payload: .settings([])).serialized
                + HTTP2Frame(streamID: 0, payload: .settingsAck).serialized
                + HTTP2Frame(streamID: 0, payload: .windowUpdate(increment: 0x7FFF_FFFF - 65_535)).serialized)
        drainOutput()
    }

    deinit { nghttp2_session_del(session) }

    /// Whether the session still reads (false after it decided to close the connection).
    var isOpen: Bool { nghttp2_session_want_read(session) != 0 }

    /// Submits the APNs request; returns its stream ID.
    func submit() -> Int32 {
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil)) { _, _, buffer, length, flags, _, _ in
            let body = LibraryBench.apnsBodyBytes
            let count = min(length, body.count)
            buffer!.update(from: body.baseAddress!, count: count)
            flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
            return count
        }
        return nghttp2_submit_request(session, nil, LibraryBench.apnsNV.baseAddress, LibraryBench.apnsNV.count, &provider, nil)
    }

    /// Serializes everything queued (what would be written to the TLS socket) and drops it.
    func drainOutput() {
        var data: UnsafePointer<UInt8>?
        while nghttp2_session_mem_send(session, &data) > 0 {}
    }

    /// Feeds received bytes; returns the count consumed or an nghttp2 error.
    @discardableResult
    func receive(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
    }
}
