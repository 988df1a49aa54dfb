import Foundation
import JSONWire
import ParleyStore
import SIPCredentialsREST
import Testing

/// The Twilio-shaped SIP API in process: lists, credentials, domains, mappings, ACLs, and what the
/// registrar's lookups then answer.
@Suite struct TwilioSIPRouterTests {
    @Test func credentialListsDomainsAndMappingsFeedTheRegistrarLookup() async throws {
        let f = try SIPRESTFixture()
        let (listStatus, list) = await f.twilio("POST", "/CredentialLists.json", [("FriendlyName", "phones")])
        #expect(listStatus == 201)
        let cl = try #require(list["sid"]?.string)
        #expect(SID.isValid(cl, prefix: "CL"))
        #expect(list["subresource_uris"]?["credentials"]?.string == "\(f.sipBase)/CredentialLists/\(cl)/Credentials.json")
        #expect(list["date_created"]?.string == "Tue, 14 Nov 2023 22:13:20 +0000")

        let (credStatus, credential) = await f.twilio("POST", "/CredentialLists/\(cl)/Credentials.json",
                                                      [("Username", "alice"), ("Password", "IWasAtSignal2018")])
        #expect(credStatus == 201)
        let cr = try #require(credential["sid"]?.string)
        #expect(SID.isValid(cr, prefix: "CR"))
        #expect(credential["password"] == nil)
        #expect(await f.twilio("POST", "/CredentialLists/\(cl)/Credentials.json",
                               [("Username", "alice"), ("Password", "IWasAtSignal2019")]).1["code"] == .integer(21243))
        #expect(await f.twilio("POST", "/CredentialLists/\(cl)/Credentials.json",
                               [("Username", "bob"), ("Password", "weakpassword")]).1["code"] == .integer(21243))

        let (domainStatus, domain) = await f.twilio("POST", "/Domains.json", [
            ("DomainName", "Acme.SIP.parley.test"), ("VoiceUrl", "https://app.example/sip"), ("SipRegistration", "true")])
        #expect(domainStatus == 201)
        let sd = try #require(domain["sid"]?.string)
        #expect(domain["domain_name"]?.string == "acme.sip.parley.test")
        #expect(domain["auth_type"]?.string == "")
        #expect(await f.twilio("POST", "/Domains.json", [("DomainName", "acme.sip.parley.test")]).1["code"] == .integer(21232))
        #expect(await f.twilio("POST", "/Domains.json", [("DomainName", "no spaces.test")]).1["code"] == .integer(21232))
        #expect(await f.twilio("POST", "/Domains.json", [("DomainName", "b.test"), ("VoiceUrl", "ftp://x")]).1["code"] == .integer(21231))

        // Nobody may register until a list is mapped for registrations.
        #expect(try f.store.sipAuthCandidates(username: "alice", domain: "acme.sip.parley.test", purpose: .registration).isEmpty)
        let (mapStatus, mapping) = await f.twilio("POST", "/Domains/\(sd)/Auth/Registrations/CredentialListMappings.json",
                                                  [("CredentialListSid", cl)])
        #expect(mapStatus == 201)
        #expect(mapping["sid"]?.string == cl && mapping["friendly_name"]?.string == "phones")
        #expect(await f.twilio("POST", "/Domains/\(sd)/Auth/Registrations/CredentialListMappings.json",
                               [("CredentialListSid", cl)]).1["code"] == .integer(21231))
        #expect(await f.twilio("GET", "/Domains/\(sd).json").1["auth_type"]?.string == "CREDENTIAL_LIST")
        let (_, mappings) = await f.twilio("GET", "/Domains/\(sd)/Auth/Registrations/CredentialListMappings.json")
        #expect(mappings["contents"]?.array.map { $0["sid"]?.string } == [cl])
        #expect(await f.twilio("GET", "/Domains/\(sd)/Auth/Registrations/CredentialListMappings/\(cl).json").0 == 200)

        let candidates = try f.store.sipAuthCandidates(username: "alice", domain: "ACME.sip.parley.test", purpose: .registration)
        #expect(candidates.count == 1)
        #expect(candidates.first?.secret == SIPDigestSecret(username: "alice", realm: "parley.test", password: "IWasAtSignal2018"))
        #expect(candidates.first?.accountSid == f.account.sid)
        // Calls need their own mapping.
        #expect(try f.store.sipAuthCandidates(username: "alice", domain: "acme.sip.parley.test", purpose: .call).isEmpty)

        // A new password replaces the secret; deleting the mapping ends registration.
        #expect(await f.twilio("POST", "/CredentialLists/\(cl)/Credentials/\(cr).json", [("Password", "NewPassword2024")]).0 == 200)
        #expect(try f.store.credential(sid: cr)?.secret.matches(username: "alice", password: "NewPassword2024") == true)
        #expect(await f.twilio("DELETE", "/Domains/\(sd)/Auth/Registrations/CredentialListMappings/\(cl).json").0 == 204)
        #expect(try f.store.sipAuthCandidates(username: "alice", domain: "acme.sip.parley.test", purpose: .registration).isEmpty)
        #expect(await f.twilio("DELETE", "/CredentialLists/\(cl).json").0 == 204)
        #expect(try f.store.credential(sid: cr) == nil)
    }

    @Test func ipAccessControlListsAdmitTheirAddresses() async throws {
        let f = try SIPRESTFixture()
        let (_, acl) = await f.twilio("POST", "/IpAccessControlLists.json", [("FriendlyName", "carrier")])
        let al = try #require(acl["sid"]?.string)
        #expect(SID.isValid(al, prefix: "AL"))
        let (ipStatus, ip) = await f.twilio("POST", "/IpAccessControlLists/\(al)/IpAddresses.json",
                                            [("FriendlyName", "edge"), ("IpAddress", "192.0.2.0"), ("CidrPrefixLength", "24")])
        #expect(ipStatus == 201)
        #expect(ip["cidr_prefix_length"] == .integer(24) && ip["ip_access_control_list_sid"]?.string == al)
        #expect(await f.twilio("POST", "/IpAccessControlLists/\(al)/IpAddresses.json", [("IpAddress", "192.0.2.300")]).0 == 400)
        #expect(await f.twilio("POST", "/IpAccessControlLists/\(al)/IpAddresses.json",
                               [("IpAddress", "2001:db8::1"), ("CidrPrefixLength", "129")]).0 == 400)
        #expect(try f.store.ipAccessControlLists(containing: "192.0.2.77").map(\.sid) == [al])
        #expect(try f.store.ipAccessControlLists(containing: "198.51.100.1").isEmpty)

        let (_, domain) = await f.twilio("POST", "/Domains.json", [("DomainName", "trunk.parley.test")])
        let sd = try #require(domain["sid"]?.string)
        #expect(try f.store.sipDomainAdmitting(address: "192.0.2.77", domain: "trunk.parley.test") == nil)
        #expect(await f.twilio("POST", "/Domains/\(sd)/Auth/Calls/IpAccessControlListMappings.json",
                               [("IpAccessControlListSid", al)]).0 == 201)
        #expect(try f.store.sipDomainAdmitting(address: "192.0.2.77", domain: "trunk.parley.test")?.sid == sd)
        #expect(try f.store.sipDomainAdmitting(address: "::ffff:192.0.2.77", domain: "trunk.parley.test")?.sid == sd)
        #expect(try f.store.sipDomainAdmitting(address: "192.0.3.1", domain: "trunk.parley.test") == nil)
        #expect(await f.twilio("GET", "/Domains/\(sd).json").1["auth_type"]?.string == "IP_ACL")
        // A credential list cannot be mapped where an ACL goes, nor the other way round.
        #expect(await f.twilio("POST", "/Domains/\(sd)/Auth/Calls/CredentialListMappings.json",
                               [("CredentialListSid", al)]).0 == 404)
    }

    @Test func refusesForeignCredentialsUnknownPathsAndMethods() async throws {
        let f = try SIPRESTFixture()
        let other = try f.store.createAccount(friendlyName: "other")
        #expect(await f.twilio("GET", "/Domains.json", auth: "\(other.sid):\(other.authToken)").1["code"] == .integer(20003))
        let theirs = try f.store.createSIPList(kind: .credentials, accountSid: other.sid, friendlyName: "theirs")
        #expect(await f.twilio("GET", "/CredentialLists/\(theirs.sid).json").0 == 404)
        #expect(await f.twilio("GET", "/Trunks.json").0 == 404)
        #expect(await f.twilio("PUT", "/Domains.json").1["code"] == .integer(20004))
        #expect(await f.twilio("POST", "/CredentialLists.json").1["code"] == .integer(21240))
        #expect(await f.twilio("GET", "/CredentialLists.json?PageSize=0").0 == 400)
    }
}
