import DataChannel
import ParleyCore
import ParleyCrypto
import ParleyNet
import SCTP
import SDP

/// What a client's data channels report (`PeerConnection.dataEvents`).
public enum DataChannelEvent: Sendable, Equatable {
    /// A channel opened: one the peer opened (`byPeer`), or one of ours the peer acknowledged;
    /// its stream, label, protocol, ordering and reliability.
    case opened(DataChannelSession.Channel, byPeer: Bool)
    case message(stream: UInt16, data: [UInt8], isBinary: Bool)
    case closed(stream: UInt16)
    /// The SCTP association is gone.
    case associationClosed
}

/// The client's data channel state (loop-confined, one per core).
final class ClientDataChannels {
    var transport: DataChannelTransport?
    var sink: AsyncStream<DataChannelEvent>.Continuation?
    var timerArmed = false
}

/// Data channels of a client connection (RFC 8831, RFC 8832): with `offerDataChannels`, the offer
/// has a data channel section; once DTLS is up and the answer accepted it, an SCTP association runs
/// over DTLS (RFC 8261), usrsctp's timers driven every 10 ms on the connection's loop.
extension PeerConnection {
    /// Opens a data channel (DCEP, RFC 8832 §5.1), now or as soon as the association is up: its
    /// stream, or nil without a negotiated data channel section or a free stream.
    public func openDataChannel(label: String, protocol: String = "", isOrdered: Bool = true,
                                reliability: DataChannelOpen.Reliability = .reliable) async -> UInt16? {
        let core = self.core
        return await withCheckedContinuation { (done: CheckedContinuation<UInt16?, Never>) in
            loop.execute {
                let stream = core.value.dataChannels.transport?.open(label: label, protocol: `protocol`, isOrdered: isOrdered,
                                                                    reliability: reliability, priority: 256)
                core.value.flushData()
                done.resume(returning: stream)
            }
        }
    }

    /// Sends one message on an open channel (or queues it behind a full send buffer, bounded);
    /// false when it was not taken (not open, too large, or the buffer and the backlog are full).
    public func sendData(_ data: [UInt8], isBinary: Bool = true, on stream: UInt16) async -> Bool {
        let core = self.core
        return await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            loop.execute {
                let outcome = core.value.dataChannels.transport?.send(stream: stream, data: data, isBinary: isBinary)
                core.value.flushData()
                done.resume(returning: outcome == .sent || outcome == .queued)
            }
        }
    }

    /// Sends messages on an open channel in one hop to the loop, in order, until one is not taken;
    /// how many were taken.
    public func sendData(_ messages: [[UInt8]], isBinary: Bool = true, on stream: UInt16) async -> Int {
        let core = self.core
        return await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
            loop.execute {
                var taken = 0
                for message in messages {
                    let outcome = core.value.dataChannels.transport?.send(stream: stream, data: message, isBinary: isBinary)
                    guard outcome == .sent || outcome == .queued else { break }
                    taken += 1
                }
                core.value.flushData()
                done.resume(returning: taken)
            }
        }
    }

    /// Closes a channel (stream reset, RFC 8831 §6.7).
    public func closeDataChannel(_ stream: UInt16) {
        let core = self.core
        loop.execute {
            core.value.dataChannels.transport?.close(stream: stream)
            core.value.flushData()
        }
    }
}

extension PeerConnectionCore {
    /// DTLS is up: the association starts when we offered a data channel section and the answer
    /// accepted it.
    func startData() {
        guard configuration.offerDataChannels, dataChannels.transport == nil, let remote,
              let application = remote.description.media.enumerated().lazy
                  .compactMap({ OfferedApplication($1, index: $0) }).first else { return }
        let transport = DataChannelTransport(role: dtlsRole == .client ? .dtlsClient : .dtlsServer,
                                             remotePort: application.sctpPort, sendLimit: application.sendLimit)
        dataChannels.transport = transport
        report(transport.start())
        flushData()
        armDataTimer()
    }

    func receiveData(_ records: [[UInt8]]) {
        guard let transport = dataChannels.transport else { return }
        for record in records { report(transport.receive(record)) }
        flushData()
    }

    func flushData() {
        guard let transport = dataChannels.transport, let dtls else { return }
        for packet in transport.takePackets() { sendDTLS(dtls.send(packet)) }
        flush()
    }

    func stopData() {
        dataChannels.transport?.shutdown()
        dataChannels.transport = nil
        dataChannels.sink?.finish()
    }

    private func report(_ notices: [DataChannelTransport.Notice]) {
        for notice in notices {
            switch notice {
            case .established: break
            case .opened(let channel, let byPeer):
                dataChannels.sink?.yield(.opened(channel, byPeer: byPeer))
            case .message(let stream, let data, let isBinary):
                dataChannels.sink?.yield(.message(stream: stream, data: data, isBinary: isBinary))
            case .closed(let stream):
                dataChannels.sink?.yield(.closed(stream: stream))
            case .gone:
                dataChannels.sink?.yield(.associationClosed)
            }
        }
    }

    private func armDataTimer() {
        guard !dataChannels.timerArmed, dataChannels.transport?.isRunning == true else { return }
        dataChannels.timerArmed = true
        let bound = LoopBound(self, loop: loop)
        loop.schedule(after: MediaTransportCore.sctpTickInterval) {
            let core = bound.value
            core.dataChannels.timerArmed = false
            guard !core.state.isTerminal, let transport = core.dataChannels.transport else { return core.stopData() }
            SCTPAssociation.handleTimers()
            core.report(transport.poll())
            core.flushData()
            core.armDataTimer()
        }
    }
}
