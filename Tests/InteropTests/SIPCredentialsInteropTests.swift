import Foundation
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// The official `plivo` and `twilio` Python libraries manage SIP credentials on a running server
/// (base URLs pointed at it): Plivo endpoints (create, get, update, list and page, delete, errors)
/// and Twilio credential lists, credentials, domains, their auth mappings and IP access control
/// lists; what they create is what the registrar's lookups then answer. Needs the venv.
@Suite(.tags(.interop)) struct SIPCredentialsInteropTests {
    @Test(.timeLimit(.minutes(1))) func plivoLibraryManagesEndpoints() async throws {
        let platform = try InteropPlatform(name: "plivo-endpoints")
        let account = platform.server.defaultCredentials.account
        let result: JSONObject
        let app: Application
        do {
            app = try platform.store.createApplication(ApplicationDraft(friendlyName: "ivr", voiceURL: "https://app.example/ivr"),
                                                           accountSid: account.sid)
            let input: JSONObject = ["base": .string(platform.base), "auth_id": .string(account.authID),
                                     "auth_token": .string(account.authToken), "app": .string(app.sid)]
            result = try await PythonProcess.run(Self.plivoScript, input: .object(input), in: platform.dir).objectValue ?? [:]
        } catch {
            await platform.stop()
            throw error
        }
        let endpoints = try platform.store.endpoints(accountSid: account.sid)
        await platform.stop()

        let created = try #require(result["created"]?.objectValue)
        let username = try #require(created["username"]?.stringValue)
        #expect(username.hasPrefix("alice") && username.count == 17)
        #expect(created["message"] == .string("created"))
        let got = try #require(result["got"]?.objectValue)
        #expect(got["alias"] == .string("Alice"))
        #expect(got["sip_uri"] == .string("sip:\(username)@127.0.0.1"))
        #expect(got["application"] == .string("/v1/Account/\(account.authID)/Application/\(app.sid)/"))
        #expect(got["has_password"] == .bool(false))
        #expect(result["updated_alias"] == .string("Alice B"))
        #expect(result["list_page"]?.arrayCount == 1)
        #expect(result["total"] == .integer(3))
        #expect(result["all"]?.arrayCount == 3)  // followed meta.next over three pages of one
        #expect(result["gone"] == .bool(true))
        #expect(result["bad_auth"] == .bool(true))
        #expect(result["invalid"] == .bool(true))
        // What the registrar will check: the digest secret of the updated password, never the password.
        let alice = try #require(endpoints.first { $0.username == username })
        #expect(endpoints.count == 2)
        #expect(alice.secret.matches(username: username, password: "n3w-password"))
        #expect(alice.applicationSid == nil)
    }

    @Test(.timeLimit(.minutes(1))) func twilioLibraryManagesCredentialsDomainsAndACLs() async throws {
        let platform = try InteropPlatform(name: "twilio-sip")
        let account = platform.server.defaultCredentials.account
        let result: JSONObject
        do {
            let input: JSONObject = ["base": .string(platform.base), "account": .string(account.sid),
                                     "auth_token": .string(account.authToken)]
            result = try await PythonProcess.run(Self.twilioScript, input: .object(input), in: platform.dir).objectValue ?? [:]
        } catch {
            await platform.stop()
            throw error
        }
        let registration = try platform.store.sipAuthCandidates(username: "alice", domain: "acme.sip.parley.test", purpose: .registration)
        let calls = try platform.store.sipAuthCandidates(username: "alice", domain: "acme.sip.parley.test", purpose: .call)
        let admitted = try platform.store.sipDomainAdmitting(address: "192.0.2.9", domain: "acme.sip.parley.test")
        await platform.stop()

        let credential = try #require(result["cred"]?.objectValue)
        #expect(credential["username"] == .string("alice"))
        #expect(SID.isValid(credential["sid"]?.stringValue ?? "", prefix: "CR"))
        #expect(credential["date"]?.stringValue?.isEmpty == false)
        #expect(result["creds"] == .array([.string("alice")]))
        #expect(result["weak"]?.objectValue?["code"] == .integer(21243))
        let domain = try #require(result["domain"]?.objectValue)
        #expect(domain["domain_name"] == .string("acme.sip.parley.test"))
        #expect(domain["voice_url"] == .string("https://app.example/sip"))
        #expect(domain["sip_registration"] == .bool(true))
        #expect(result["reg_mappings"] == result["list_sid"].map { .array([$0]) })
        #expect(result["dup_mapping"]?.objectValue?["code"] == .integer(21231))
        #expect(result["ip"]?.objectValue?["cidr_prefix_length"] == .integer(24))
        #expect(result["auth_type"] == .string("CREDENTIAL_LIST,IP_ACL"))
        #expect(result["updated_voice_url"] == .string("https://app.example/sip2"))
        #expect(result["domains"] == .array([.string("acme.sip.parley.test")]))
        #expect(result["taken"]?.objectValue?["code"] == .integer(21232))
        #expect(result["deleted_acl_ip"] == .bool(true))
        #expect(result["fetch_deleted_ip"]?.objectValue?["code"] == .integer(20404))
        #expect(result["unknown_list"]?.objectValue?["status"] == .integer(404))

        #expect(registration.count == 1)
        #expect(registration.first?.secret.matches(username: "alice", password: "NewPassword2024") == true)
        #expect(calls.isEmpty)  // its Auth/Calls mapping was deleted
        #expect(admitted == nil)  // its only address was deleted
    }

    static let plivoScript = """
        import json, sys
        import plivo
        import plivo.rest.client as plivo_client
        from plivo import exceptions

        cfg = json.load(sys.stdin)
        base = cfg["base"] + "/v1/Account"
        # The only change a Plivo backend needs: the API base (voice requests use these).
        for name in ("API_VOICE_BASE_URI", "API_VOICE_BASE_URI_FALLBACK_1", "API_VOICE_BASE_URI_FALLBACK_2", "PLIVO_API_BASE_URI"):
            setattr(plivo_client, name, base)
        client = plivo.RestClient(cfg["auth_id"], cfg["auth_token"])
        out = {}
        created = client.endpoints.create(username="alice", password="s3cret-pass", alias="Alice", app_id=cfg["app"])
        out["created"] = {"username": created.username, "endpoint_id": created.endpoint_id, "message": created.message}
        eid = created.endpoint_id
        got = client.endpoints.get(eid)
        out["got"] = {"alias": got.alias, "sip_uri": got.sip_uri, "application": got.application,
                      "has_password": "password" in got.__dict__}
        client.endpoints.update(eid, alias="Alice B", password="n3w-password", app_id="")
        out["updated_alias"] = client.endpoints.get(eid).alias
        client.endpoints.create(username="bob", password="s3cret-pass", alias="Bob")
        doomed = client.endpoints.create(username="carol", password="s3cret-pass", alias="Carol")
        page = client.endpoints.list(limit=1, offset=0)
        out["list_page"] = [e.username for e in page]
        out["total"] = page.meta.total_count
        out["all"] = [e.username for e in client.endpoints]
        client.endpoints.delete(doomed.endpoint_id)
        try:
            client.endpoints.get(doomed.endpoint_id)
            out["gone"] = False
        except exceptions.ResourceNotFoundError:
            out["gone"] = True
        try:
            # get, not list: the library's list wraps any answer in its list type before it checks
            # the status, and then fails on an error body with an AttributeError of its own.
            plivo.RestClient(cfg["auth_id"], "wrong-token").endpoints.get(eid)
            out["bad_auth"] = False
        except exceptions.AuthenticationError:
            out["bad_auth"] = True
        try:
            client.endpoints.create(username="bad name", password="s3cret-pass", alias="x")
            out["invalid"] = False
        except exceptions.ValidationError:
            out["invalid"] = True
        print(json.dumps(out))
        """

    static let twilioScript = TwilioScriptPrelude.source + """
        sip = client(cfg["account"], cfg["auth_token"]).sip
        out = {}
        cl = sip.credential_lists.create(friendly_name="phones")
        out["list_sid"] = cl.sid
        cred = cl.credentials.create(username="alice", password="IWasAtSignal2018")
        out["cred"] = {"sid": cred.sid, "username": cred.username, "date": cred.date_created.isoformat()}
        out["creds"] = [c.username for c in sip.credential_lists(cl.sid).credentials.list()]
        sip.credential_lists(cl.sid).credentials(cred.sid).update(password="NewPassword2024")
        out["weak"] = failure(lambda: cl.credentials.create(username="bob", password="weak"))
        d = sip.domains.create(domain_name="acme.sip.parley.test", voice_url="https://app.example/sip", voice_method="POST",
                               voice_status_callback_url="https://app.example/status", sip_registration=True)
        out["domain"] = {"domain_name": d.domain_name, "voice_url": d.voice_url, "sip_registration": d.sip_registration}
        auth = sip.domains(d.sid).auth
        auth.registrations.credential_list_mappings.create(credential_list_sid=cl.sid)
        auth.calls.credential_list_mappings.create(credential_list_sid=cl.sid)
        out["reg_mappings"] = [m.sid for m in auth.registrations.credential_list_mappings.list()]
        out["dup_mapping"] = failure(lambda: auth.registrations.credential_list_mappings.create(credential_list_sid=cl.sid))
        acl = sip.ip_access_control_lists.create(friendly_name="carrier")
        ip = sip.ip_access_control_lists(acl.sid).ip_addresses.create(friendly_name="edge", ip_address="192.0.2.0",
                                                                       cidr_prefix_length=24)
        out["ip"] = {"ip_address": ip.ip_address, "cidr_prefix_length": ip.cidr_prefix_length}
        auth.calls.ip_access_control_list_mappings.create(ip_access_control_list_sid=acl.sid)
        out["auth_type"] = sip.domains(d.sid).fetch().auth_type
        out["updated_voice_url"] = sip.domains(d.sid).update(voice_url="https://app.example/sip2").voice_url
        out["domains"] = [x.domain_name for x in sip.domains.list()]
        out["taken"] = failure(lambda: sip.domains.create(domain_name="acme.sip.parley.test"))
        auth.calls.credential_list_mappings(cl.sid).delete()
        out["deleted_acl_ip"] = sip.ip_access_control_lists(acl.sid).ip_addresses(ip.sid).delete()
        out["fetch_deleted_ip"] = failure(lambda: sip.ip_access_control_lists(acl.sid).ip_addresses(ip.sid).fetch())
        out["unknown_list"] = failure(lambda: sip.credential_lists("CL" + "0" * 32).fetch())
        print(json.dumps(out))
        """
}

private extension JSONValue {
    var arrayCount: Int? { if case .array(let a) = self { a.count } else { nil } }
}
