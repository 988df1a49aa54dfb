import ServerMedia

/// Feeds arbitrary RTP packets (what a publisher may send) to the recorders' writers: the
/// sequence reorder window, the Opus writer (Ogg Opus) and the VP8 writer (IVF). Each 8-byte
/// header gives a packet's sequence step, timestamp step, marker, arrival step and payload length;
/// the payload follows. Nothing may trap; the Ogg output is whole pages with granule positions
/// that never go back, and the IVF output has one frame header per frame written.
enum RecordingFuzz {
    struct Packet {
        var sequence: UInt16
        var timestamp: UInt32
        var marker: Bool
        var arrival: Double
        var payload: [UInt8]
    }

    static func run(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        var opus = OpusTrackWriter(serialNumber: 1)
        var vp8 = VP8TrackWriter()
        var window = SequenceReorderWindow<Packet>(window: 8)
        var (ogg, ivf): ([UInt8], [UInt8]) = ([], [])
        var (sequence, timestamp, arrival): (UInt16, UInt32, Double) = (0, 0, 0)
        var i = 0
        func write(_ p: Packet, lost: Int) {
            ogg += opus.write(p.payload, timestamp: p.timestamp, arrival: p.arrival)
            ivf += vp8.write(p.payload, sequenceNumber: p.sequence, timestamp: p.timestamp, marker: p.marker, lostBefore: lost,
                             arrival: p.arrival).bytes
        }
        while i + 8 <= bytes.count {
            let h = bytes[i..<i + 8].map { Int($0) }
            sequence &+= UInt16(truncatingIfNeeded: h[0] - 8)
            timestamp &+= UInt32(truncatingIfNeeded: (h[1] << 8 | h[2]) * (h[3] & 0x80 != 0 ? 1_000 : 1))
            arrival += Double(h[4]) / 100
            let length = min(h[5] << 8 | h[6], bytes.count - i - 8)
            let payload = Array(bytes[(i + 8)..<(i + 8 + length)])
            var released: [(Packet, Int)] = []
            window.insert(sequence, Packet(sequence: sequence, timestamp: timestamp, marker: h[3] & 1 != 0, arrival: arrival,
                                           payload: payload)) { released.append(($0, $1)) }
            for (packet, lost) in released { write(packet, lost: lost) }
            i += 8 + length
        }
        var rest: [(Packet, Int)] = []
        window.flush { rest.append(($0, $1)) }
        for (packet, lost) in rest { write(packet, lost: lost) }
        checkOgg(ogg)
        checkIVF(ivf, frames: vp8.frames)
    }

    static func checkOgg(_ bytes: [UInt8]) {
        var i = 0, last: UInt64 = 0
        while i < bytes.count {
            precondition(i + 27 <= bytes.count && bytes[i..<i + 4].elementsEqual("OggS".utf8), "not an Ogg page")
            let granule = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[i + 6 + $1]) << (8 * UInt64($1)) }
            precondition(granule == UInt64.max || granule >= last, "granule went back")
            if granule != UInt64.max { last = granule }
            let segments = Int(bytes[i + 26])
            precondition(i + 27 + segments <= bytes.count, "page cut")
            i += 27 + segments + bytes[(i + 27)..<(i + 27 + segments)].reduce(0) { $0 + Int($1) }
        }
        precondition(i == bytes.count, "page cut")
    }

    static func checkIVF(_ bytes: [UInt8], frames: Int) {
        guard frames > 0 else { return precondition(bytes.isEmpty || bytes.count == 32, "IVF without frames") }
        var i = 32, count = 0
        while i + 12 <= bytes.count {
            i += 12 + (0..<4).reduce(0) { $0 | Int(bytes[i + $1]) << (8 * $1) }
            count += 1
        }
        precondition(i == bytes.count && count == frames, "IVF frames do not add up")
    }
}
