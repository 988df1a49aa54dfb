import HTTP2Wire

/// Feeds bytes to the HTTP/2 frame decoder in two reads (split at a point taken from the input),
/// continuing past stream errors as a connection would, and checks that every frame survives
/// serialize → parse unchanged. Field blocks are also run through an HPACK decoder, and SETTINGS
/// through settings validation.
enum HTTP2FrameFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let split = data.isEmpty ? 0 : Int(data[0]) % (data.count + 1)
        var frames = HTTP2FrameDecoder(maxFrameSize: 16_384, maxHeaderBlockSize: 64 * 1024)
        var hpack = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 16 * 1024)
        var settings = HTTP2Settings()
        parts: for part in [UnsafeRawBufferPointer(rebasing: data[..<split]), UnsafeRawBufferPointer(rebasing: data[split...])] {
            frames.append(part)
            while true {
                let frame: HTTP2Frame
                do {
                    guard let next = try frames.next() else { continue parts }
                    frame = next
                } catch {
                    if error.isConnectionError { break parts }
                    continue
                }
                check(frame)
                switch frame.payload {
                case .headers(let h): _ = try? hpack.decode(h.headerBlock)
                case .pushPromise(let p): _ = try? hpack.decode(p.headerBlock)
                case .settings(let parameters): try? settings.apply(parameters)
                default: break
                }
            }
        }
    }

    /// Serializing a parsed frame and parsing it again must give the same frame.
    private static func check(_ frame: HTTP2Frame) {
        let bytes = frame.serialized
        var again = HTTP2FrameDecoder(maxFrameSize: HTTP2FrameHeader.maxLength, maxHeaderBlockSize: 1 << 24)
        again.append(bytes)
        guard let reparsed = try? again.next(), reparsed == frame, again.bufferedCount == 0 else {
            fatalError("HTTP/2 frame serialize -> parse is unstable: \(frame)")
        }
    }
}
