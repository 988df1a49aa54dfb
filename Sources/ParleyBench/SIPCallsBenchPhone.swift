import Foundation
import ParleyNet
import SDP

/// The SIP side of one `parley-bench sip-calls` call: a raw RTP phone (one UDP socket, plain
/// RTP/AVP, PCMU with RFC 4733 events offered), sending paced, tagged 160-byte PCMU payloads
/// (20 ms at 8 kHz) like `CallsBenchLeg` does on the WebRTC side. Loop thread after `connect`.
final class SIPCallsBenchPhone: @unchecked Sendable {
    let index: Int
    let loop: EventLoop
    let ssrc: UInt32
    private(set) var socket: UDPSocket!
    private var server: SocketAddress?
    private var sequence: UInt16 = 0
    private var timestamp: UInt32 = 0
    private let delays: DelayHistogram
    private var lastTransit: Int64?

    // Loop-thread counters, as `CallsBenchLeg`'s.
    var sent = 0, received = 0, played = 0, sendDropped = 0
    private(set) var jitterNanos = 0.0

    init(index: Int, loop: EventLoop, delays: DelayHistogram) throws {
        self.index = index
        self.loop = loop
        self.delays = delays
        ssrc = 0x3000_0000 &+ UInt32(index)
        socket = try UDPSocket.inPlace(host: "127.0.0.1", port: 0, loop: loop, batchSize: 4, maxDatagramBytes: 2048,
                                       sendBatchSize: 4) { [unowned self] batch in receive(batch) }
    }

    /// The phone's SDP offer (RFC 3264): PCMU and telephone-event on plain RTP.
    var offer: String {
        """
        v=0\r
        o=phone \(index + 1) 1 IN IP4 127.0.0.1\r
        s=-\r
        c=IN IP4 127.0.0.1\r
        t=0 0\r
        m=audio \(socket.localPort) RTP/AVP 0 101\r
        a=rtpmap:0 PCMU/8000\r
        a=rtpmap:101 telephone-event/8000\r
        a=fmtp:101 0-16\r
        a=ptime:20\r
        a=sendrecv\r

        """
    }

    /// Takes the server's answer: where to send.
    func connect(answer: String) async throws {
        let sdp = try SessionDescription(parsing: answer)
        guard let audio = sdp.media.first, let host = audio.connections.first?.address ?? sdp.connection?.address else {
            throw CallsBenchLeg.SetupFailed(description: "phone \(index): unusable answer:\n\(answer)")
        }
        let address = try SocketAddress.resolve(host: host, port: Int(audio.port))
        await ForwardBench.onLoop(loop) { [self] in server = address }
    }

    /// Sends one tagged PCMU packet (loop thread).
    func sendPacket(now: UInt64) {
        guard let server else { return }
        sequence &+= 1
        timestamp &+= 160
        let seq = sequence, ts = timestamp, ssrc = ssrc, index = index
        let queued = socket.sendBatch.withUnsafeSlot(to: server) { slot in
            slot[0] = 0x80
            slot[1] = 0
            slot.storeBytes(of: seq.bigEndian, toByteOffset: 2, as: UInt16.self)
            slot.storeBytes(of: ts.bigEndian, toByteOffset: 4, as: UInt32.self)
            slot.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
            CallsBenchLeg.tag(slot, at: 12, index: index, now: now, payloadBytes: 160)
            return 12 + 160
        }
        if queued { sent += 1 } else { sendDropped += 1 }
        socket.sendBatch.flush()
    }

    private func receive(_ batch: UDPReceivedBatch) {
        let now = DispatchTime.now().uptimeNanoseconds
        for i in 0..<batch.count {
            let bytes = UnsafeRawBufferPointer(batch[i].bytes)
            // RTP only (RTCP's packet types are 200–204, RFC 5761 §4).
            guard bytes.count > 12, bytes[0] >> 6 == 2, !(192...223).contains(bytes[1]) else { continue }
            guard let transit = CallsBenchLeg.transit(UnsafeRawBufferPointer(rebasing: bytes[12...]), now: now) else {
                played += 1
                continue
            }
            received += 1
            delays.add(nanoseconds: transit)
            if let last = lastTransit { jitterNanos += (Double(abs(transit - last)) - jitterNanos) / 16 }   // RFC 3550 §6.4.1
            lastTransit = transit
        }
    }

    func close() { socket.close() }
}
