/// Kamailio 5.6 configurations for the tests and `parley-bench sip`: one preamble (core
/// settings, the module path, modules and their parameters) and the `request_route` each use
/// runs. Kamailio runs in the foreground (`-DD -E`) on one UDP address.
public struct KamailioConfiguration: Sendable {
    /// Debian's module directory for Kamailio 5.6.
    public static let modulePath = "/usr/lib/x86_64-linux-gnu/kamailio/modules/"
    /// What every configuration here loads: transactions, stateless replies, record-routing,
    /// pseudo-variables, Max-Forwards, text operations and SIP utilities.
    public static let proxyModules = ["tm", "sl", "rr", "pv", "maxfwd", "siputils", "textops"]

    public var port: Int
    /// Kamailio's `debug` (0 quiet, 2 notices and above).
    public var debug: Int
    public var modules: [String]
    /// `modparam` lines, as `(module, name, value)`; a value is written as given (quote strings).
    public var parameters: [(String, String, String)]
    /// The body of `request_route { … }`.
    public var requestRoute: String

    public init(port: Int, debug: Int = 0, modules: [String] = proxyModules, parameters: [(String, String, String)] = [],
                requestRoute: String) {
        self.port = port
        self.debug = debug
        self.modules = modules
        self.parameters = parameters
        self.requestRoute = requestRoute
    }

    /// The `kamailio.cfg` text.
    public var text: String {
        var lines = ["#!KAMAILIO", "debug=\(debug)", "log_stderror=yes", "children=1", "auto_aliases=no",
                     "listen=udp:127.0.0.1:\(port)", "mpath=\"\(Self.modulePath)\""]
        lines += modules.map { "loadmodule \"\($0).so\"" }
        lines += parameters.map { "modparam(\"\($0.0)\", \"\($0.1)\", \($0.2))" }
        lines.append("request_route {")
        lines.append(Self.maxForwardsCheck)
        lines.append(requestRoute)
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// RFC 3261 §16.3 step 3: a request out of hops is answered 483.
    static let maxForwardsCheck = #"    if (!mf_process_maxfwd_header("10")) { sl_send_reply("483", "Too Many Hops"); exit; }"#

    /// In-dialog requests follow their route set (else the Request-URI), RFC 3261 §16.12.
    static let inDialog = """
            if (has_totag()) {
                loose_route();
                t_relay();
                exit;
            }
        """

    /// A trunk in front of a carrier: every new request is record-routed and relayed to
    /// `127.0.0.1:carrierPort`; in-dialog requests and CANCELs follow their dialog or transaction.
    public static func trunkProxy(port: Int, carrierPort: Int, debug: Int = 2) -> KamailioConfiguration {
        KamailioConfiguration(port: port, debug: debug, requestRoute: inDialog + """

                if (is_method("CANCEL")) { t_relay(); exit; }
                record_route();
                $du = "sip:127.0.0.1:\(carrierPort)";
                t_relay();
            """)
    }

    /// A registrar with digest (every user's password is `password`; contacts in memory) that also
    /// authenticates INVITEs (407) and relays them, record-routed: to `127.0.0.1:calleePort`, or
    /// without one to the callee's registered contact (`lookup("location")`, 404 when none).
    public static func registrarProxy(port: Int, password: String, calleePort: Int? = nil, debug: Int = 0) -> KamailioConfiguration {
        let destination = calleePort.map { #"$du = "sip:127.0.0.1:\#($0)";"# }
            ?? #"if (!lookup("location")) { sl_send_reply("404", "Not Found"); exit; }"#
        return KamailioConfiguration(
            port: port, debug: debug, modules: proxyModules + ["usrloc", "registrar", "auth"],
            parameters: [("auth", "secret", "\"parley-bench\""), ("auth", "qop", "\"auth\""), ("auth", "nonce_expire", "300"),
                         ("usrloc", "db_mode", "0"), ("registrar", "max_contacts", "10")],
            requestRoute: """
                    if (is_method("REGISTER")) {
                        if (!pv_www_authenticate("$td", "\(password)", "0")) { www_challenge("$td", "0"); exit; }
                        if (!save("location")) { sl_reply_error(); }
                        exit;
                    }
                """ + "\n" + inDialog + """

                    if (is_method("CANCEL")) { if (t_check_trans()) { t_relay(); } exit; }
                    if (is_method("INVITE")) {
                        if (!pv_proxy_authenticate("$fd", "\(password)", "0")) { proxy_challenge("$fd", "0"); exit; }
                        consume_credentials();
                        record_route();
                        \(destination)
                        t_relay();
                        exit;
                    }
                    if (is_method("ACK")) { t_relay(); exit; }
                    sl_send_reply("405", "Method Not Allowed");
                """)
    }
}
