import Testing
import ParleyCore
import ParleyCrypto
import ParleySRTP

/// Two `DTLSSession`s talking through memory (RFC 6347 handshake, RFC 5764 DTLS-SRTP).
@Suite struct DTLSSessionTests {
    @Test(arguments: SRTPProfile.allCases)
    func connectsAndExportsMatchingKeys(profile: SRTPProfile) throws {
        let (client, server) = try DTLSHarness.pair(profiles: [profile.protectionProfileID])
        #expect(server.start().isEmpty)  // a server waits for the ClientHello
        let hello = client.start()
        #expect(!hello.isEmpty && hello.allSatisfy { $0.count <= DTLSSession.defaultMTU })
        #expect(hello.first?.first == 22)  // handshake record (RFC 7983: DTLS is 20...63)
        DTLSHarness.pump(client: client, server: server, toServer: hello)

        #expect(client.state == .connected && server.state == .connected)
        #expect(client.srtpProtectionProfile == profile.protectionProfileID)
        #expect(server.srtpProtectionProfile == profile.protectionProfileID)
        let c = try SRTPKeyingMaterial(exporter: client, profile: profile, isClient: true)
        let s = try SRTPKeyingMaterial(exporter: server, profile: profile, isClient: false)
        #expect(c.localKey == s.remoteKey && c.localSalt == s.remoteSalt)
        #expect(c.remoteKey == s.localKey && c.remoteSalt == s.localSalt)
        #expect(c.localKey.count == 16 && c.localSalt.count == profile.saltLength && c.localKey != c.remoteKey)
        let label = SRTPKeyingMaterial.exporterLabel
        #expect(try client.exportKeyingMaterial(label: label, length: 60)
                == server.exportKeyingMaterial(label: label, length: 60))
        #expect(client.nextTimeout == nil)
    }

    @Test func defaultOffersNegotiateGCMFirst() throws {
        let (client, server) = try DTLSHarness.pair()
        DTLSHarness.pump(client: client, server: server, toServer: client.start())
        #expect(client.srtpProtectionProfile == 0x0007 && server.srtpProtectionProfile == 0x0007)
    }

    @Test func exportedKeysDriveSRTPBothWays() throws {
        let (client, server) = try DTLSHarness.pair(profiles: [SRTPProfile.aes128CMHMACSHA1_80.protectionProfileID])
        DTLSHarness.pump(client: client, server: server, toServer: client.start())
        // The owner's glue: the negotiated profile id names an SRTPProfile, the exporter gives the keys.
        func srtp(_ session: DTLSSession) throws -> SRTPContext {
            let profile = try #require(session.srtpProtectionProfile.flatMap(SRTPProfile.init(protectionProfileID:)))
            return try SRTPContext(keyingMaterial: SRTPKeyingMaterial(exporter: session, profile: profile,
                                                                      isClient: session.role == .client))
        }

        let sender = try srtp(client), receiver = try srtp(server)
        let rtp: [UInt8] = [0x80, 0x60, 0x00, 0x01, 0, 0, 0, 1, 0xDE, 0xAD, 0xBE, 0xEF] + Array(1...50)
        var buffer = rtp + [UInt8](repeating: 0, count: SRTPContext.maxTrailerLength)
        let length = try sender.protect(&buffer, length: rtp.count)
        #expect(try receiver.unprotect(&buffer, length: length) == rtp.count)
        #expect(Array(buffer[0..<rtp.count]) == rtp)
    }

    @Test func clientRejectsServerWithWrongFingerprint() throws {
        let stranger = try CertificateIdentity()
        let clientIdentity = try CertificateIdentity(), serverIdentity = try CertificateIdentity()
        let client = try DTLSSession(role: .client, certificate: clientIdentity, remoteFingerprint: stranger.fingerprint)
        let server = try DTLSSession(role: .server, certificate: serverIdentity,
                                     remoteFingerprint: clientIdentity.fingerprint)
        DTLSHarness.pump(client: client, server: server, toServer: client.start())
        let expected = ParleyError(.mediaDtlsTransportFailed, reason: "fingerprint mismatch")
        #expect(client.state == .failed(expected))
        #expect(server.state != .connected)
        if case .failed(let error) = server.state { #expect(error.code.rawValue == 53407) }
        #expect(client.srtpProtectionProfile == nil && client.nextTimeout == nil)
        #expect(throws: ParleyError.self) { try client.exportKeyingMaterial(label: "EXTRACTOR-dtls_srtp", length: 60) }
    }

    @Test func serverRejectsClientWithWrongFingerprint() throws {
        let stranger = try CertificateIdentity()
        let clientIdentity = try CertificateIdentity(), serverIdentity = try CertificateIdentity()
        let client = try DTLSSession(role: .client, certificate: clientIdentity,
                                     remoteFingerprint: serverIdentity.fingerprint)
        let server = try DTLSSession(role: .server, certificate: serverIdentity, remoteFingerprint: stranger.fingerprint)
        var changes: [DTLSState] = []
        var toServer = client.start()
        for _ in 0..<10 where !toServer.isEmpty {
            var toClient: [[UInt8]] = []
            for d in toServer {
                let out = server.receive(d)
                if let change = out.stateChange { changes.append(change) }
                toClient += out.datagrams
            }
            toServer = toClient.flatMap { client.receive($0).datagrams }
        }
        let error = ParleyError(.mediaDtlsTransportFailed, reason: "fingerprint mismatch")
        #expect(changes.last == .failed(error))
        #expect(error.code.rawValue == 53407)
        #expect(client.state != .connected)  // the alert reached the client
    }

    @Test func retransmitsLostFlightsOnTimeout() async throws {
        let (client, server) = try DTLSHarness.pair(timeout: .milliseconds(20))
        _ = client.start()  // ClientHello lost
        // OpenSSL times flights on its own clock (see `DTLSSession.nextTimeout`); wait it out.
        let first = try #require(client.nextTimeout)
        #expect(first <= .milliseconds(20))
        try await Task.sleep(for: first + .milliseconds(5))
        let resent = client.handleTimeout().datagrams
        #expect(!resent.isEmpty && client.state == .handshaking)

        // The server's first flight is lost too; its own timer brings it back.
        let lost = resent.flatMap { server.receive($0).datagrams }
        #expect(!lost.isEmpty)
        let serverTimer = try #require(server.nextTimeout)
        try await Task.sleep(for: serverTimer + .milliseconds(5))
        let again = server.handleTimeout().datagrams
        #expect(!again.isEmpty)
        DTLSHarness.pump(client: client, server: server, toServer: [], toClient: again)
        #expect(client.state == .connected && server.state == .connected)
        let label = SRTPKeyingMaterial.exporterLabel
        #expect(try client.exportKeyingMaterial(label: label, length: 60) == server.exportKeyingMaterial(label: label, length: 60))
    }

    @Test func earlyTimeoutDoesNothing() throws {
        let (client, _) = try DTLSHarness.pair()
        _ = client.start()
        #expect(try #require(client.nextTimeout) > .milliseconds(500))
        #expect(client.handleTimeout().datagrams.isEmpty)
        #expect(client.state == .handshaking)
    }

    @Test func garbageDatagramsAreIgnored() throws {
        let (client, server) = try DTLSHarness.pair()
        var generator = SystemRandomNumberGenerator()
        func junk() -> [[UInt8]] {
            (0..<40).map { i -> [UInt8] in
                var bytes = (0..<(i * 37 % 1300)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if bytes.count >= 13, i % 2 == 0 {  // plausible DTLS 1.2 record header, random body
                    bytes[0] = [20, 21, 22, 23][i % 4]; bytes[1] = 0xFE; bytes[2] = 0xFD
                }
                return bytes
            } + [[], [22], [22, 0xFE, 0xFD]]
        }
        for d in junk() { _ = server.receive(d) }  // before any handshake
        #expect(server.state == .handshaking)
        let hello = client.start()
        for d in junk() { _ = client.receive(d) }
        #expect(client.state == .handshaking)
        DTLSHarness.pump(client: client, server: server, toServer: hello + junk(), toClient: junk())
        #expect(client.state == .connected && server.state == .connected)
        for d in junk() {
            #expect(server.receive(d).applicationData.isEmpty)
            _ = client.receive(d)
        }
        #expect(client.state == .connected && server.state == .connected)
    }

    @Test func applicationDataAndCloseNotify() throws {
        let (client, server) = try DTLSHarness.pair()
        DTLSHarness.pump(client: client, server: server, toServer: client.start())
        let message = Array("hello over DTLS".utf8)
        let delivered = DTLSHarness.pump(client: client, server: server, toServer: client.send(message),
                                         toClient: server.send([1, 2, 3]))
        #expect(delivered.toServer == [message] && delivered.toClient == [[1, 2, 3]])

        let goodbye = client.close()
        #expect(client.state == .closed && goodbye.count == 1)
        let out = server.receive(goodbye[0])
        #expect(out.stateChange == .closed && server.state == .closed)
        #expect(client.send(message).isEmpty && client.close().isEmpty)
    }
}

/// The owner-side glue: DTLS offers exactly the exporter SRTP asks for (WebRTC's `DTLSSRTPKeying`
/// adapts it the same way).
extension DTLSSession: SRTPKeyingMaterialExporter {}
