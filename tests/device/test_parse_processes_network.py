"""ps (toybox and toolbox), ip addr / ip route, dumpsys connectivity and cmd wifi status."""

from __future__ import annotations

from adbwire.device.parsers.network import (
    parse_default_network,
    parse_ip_addr,
    parse_route,
    parse_wifi_status,
)
from adbwire.device.parsers.processes import is_toolbox_header_only, parse_ps, user_name
from adbwire.device.processes import select
from tests.device_outputs import device_output


def test_toolbox_ps_of_an_android_5_phone() -> None:
    rows = parse_ps(device_output("ps/toolbox_android5_xiaomi_mi4c_qt4a.txt"))
    assert len(rows) == 172  # every row; QT4A's own test counts the same
    init = rows[0]
    assert (init.pid, init.ppid, init.user, init.name, init.state, init.rss_kb) == (
        1, 0, "root", "/init", "S", 736,
    )  # fmt: skip
    ps = next(r for r in rows if r.pid == 23740)
    assert (ps.name, ps.state, ps.ppid) == ("ps", "R", 2606)
    qq = [r.name for r in select(tuple(rows), package="com.tencent.nijigen")]
    assert qq == [
        "com.tencent.nijigen",
        "com.tencent.nijigen:wns",
        "com.tencent.nijigen:QALSERVICE",
        "com.tencent.nijigen:xg_service_v3",
        "com.tencent.nijigen:picker",
    ]


# Android 7 toolbox with 64-bit PCs: a blank WCHAN, a zombie, a name starting with ".".
# Excerpt of a Chinese adb guide (search index id 170447830; repository not named there).
ANDROID_7_TOOLBOX = """\
USER      PID   PPID  VSIZE  RSS   WCHAN              PC  NAME
root      1     0     14924  2520  SyS_epoll_ 0000000000 S /init
media_rw  1722  436   0      0        do_exit 0000000000 Z sdcard
system    1914  685   1465768 58340 SyS_epoll_ 0000000000 S .dataservices
shell     15512 12493 9104   1660           0 7fb51810c0 R ps
"""


def test_toolbox_ps_with_blank_and_odd_columns() -> None:
    rows = parse_ps(ANDROID_7_TOOLBOX)
    assert [(r.pid, r.state, r.name) for r in rows] == [
        (1, "S", "/init"),
        (1722, "Z", "sdcard"),
        (1914, "S", ".dataservices"),
        (15512, "R", "ps"),
    ]


# Android 14 emulator, `ps -A` (toybox's default columns); from Markdown notes on adb
# (search index id 44769085115; repository not named there); the notes left out the header,
# which is toybox's own.
ANDROID_14_TOYBOX = """\
USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME
root            96     1   10857084   1600 0                   0 S init
webview_zyg+   837   369   14248096  48296 0                   0 S webview_zygote
network_sta+   861   369   13753724  83056 0                   0 S com.android.networkstack.process
u0_a128       1539   369   14091028 186036 0                   0 S com.google.android.gms.persistent
shell         5014   445   10779264   3500 sigsuspend          0 S sh
root          5018     2          0      0 0                   0 I [kworker/1:0-virtio_vsock]
"""


def test_toybox_default_columns_keep_cut_user_names_as_printed() -> None:
    rows = parse_ps(ANDROID_14_TOYBOX)
    assert [(r.pid, r.user, r.state, r.rss_kb, r.name) for r in rows] == [
        (96, "root", "S", 1600, "init"),
        (837, "webview_zyg+", "S", 48296, "webview_zygote"),
        (861, "network_sta+", "S", 83056, "com.android.networkstack.process"),
        (1539, "u0_a128", "S", 186036, "com.google.android.gms.persistent"),
        (5014, "shell", "S", 3500, "sh"),
        (5018, "root", "I", 0, "[kworker/1:0-virtio_vsock]"),
    ]
    # a process of another package whose name merely starts with the package's
    assert select(tuple(rows), package="com.google.android.gms") == []
    assert [r.pid for r in select(tuple(rows), name="zygote")] == [837]


def test_toybox_chosen_columns_rebuild_cut_user_names_from_the_uid() -> None:
    text = (
        "  PID  PPID   UID USER         S   RSS NAME\n"
        "  837   369  1053 webview_zyg+ S 48296 webview_zygote\n"
        " 1539   369 10128 u0_a128      S 186036 com.google.android.gms.persistent\n"
        " 2222   369 1099001 u10_i1+    S  1234 com.google.android.webview:sandboxed_process0\n"
        "   77     2     0 root         I     0 kworker/u8:1 with spaces\n"
    )
    rows = parse_ps(text)
    assert [(r.pid, r.uid, r.user) for r in rows] == [
        (837, 1053, "1053"),
        (1539, 10128, "u0_a128"),
        (2222, 1099001, "u10_i1"),
        (77, 0, "root"),
    ]
    assert rows[-1].name == "kworker/u8:1 with spaces"
    assert rows[2].package == "com.google.android.webview"
    assert user_name(10190) == "u0_a190"


def test_toolbox_reading_minus_a_as_a_name_filter_is_recognised() -> None:
    assert is_toolbox_header_only("USER     PID   PPID  VSIZE  RSS     WCHAN    PC         NAME\n")
    assert not is_toolbox_header_only(ANDROID_7_TOOLBOX)
    assert parse_ps("") == []


IP_ADDR = """\
1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
    inet 127.0.0.1/8 scope host lo
       valid_lft forever preferred_lft forever
    inet6 ::1/128 scope host
       valid_lft forever preferred_lft forever
2: dummy0: <BROADCAST,NOARP> mtu 1500 qdisc noop state DOWN group default qlen 1000
    link/ether 7e:5b:c6:1f:2a:11 brd ff:ff:ff:ff:ff:ff
14: rmnet_data0@rmnet0: <UP,LOWER_UP> mtu 1500 qdisc mq state UNKNOWN group default qlen 1000
    inet 10.176.33.5/30 scope global rmnet_data0
23: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 3000
    link/ether 02:15:b2:00:00:00 brd ff:ff:ff:ff:ff:ff
    inet 10.0.2.16/24 brd 10.0.2.255 scope global wlan0
       valid_lft forever preferred_lft forever
    inet6 fe80::15:b2ff:fe00:0/64 scope link
       valid_lft forever preferred_lft forever
"""


def test_interfaces_of_ip_addr() -> None:
    found = {i.name: i for i in parse_ip_addr(IP_ADDR)}
    assert list(found) == ["lo", "dummy0", "rmnet_data0", "wlan0"]
    assert found["wlan0"].up and found["wlan0"].mac == "02:15:b2:00:00:00"
    assert found["wlan0"].addresses == ("10.0.2.16/24", "fe80::15:b2ff:fe00:0/64")
    assert not found["dummy0"].up
    assert found["rmnet_data0"].addresses == ("10.176.33.5/30",)


def test_routes() -> None:
    route = parse_route("8.8.8.8 via 10.0.2.2 dev wlan0 table 1021 src 10.0.2.16 uid 2000\n")
    assert route is not None
    assert (route.interface, route.gateway, route.source) == ("wlan0", "10.0.2.2", "10.0.2.16")
    assert parse_route("RTNETLINK answers: Network is unreachable\n") is None
    default = parse_route("default via 192.168.1.1 dev wlan0 proto dhcp\n")
    assert default is not None and default.gateway == "192.168.1.1"


MODERN_NAI = (
    "  NetworkAgentInfo{network{100}  handle{432902426637}  ni{WIFI CONNECTED extra: } "
    " created everValidated lastValidated  lp{{InterfaceName: wlan0 LinkAddresses: "
    "[ fe80::15:b2ff:fe00:0/64,10.0.2.16/24 ] DnsAddresses: [ /10.0.2.3 ] Domains: null "
    "MTU: 1500 Routes: [ 0.0.0.0/0 -> 10.0.2.2 wlan0 mtu 0 ]}}  nc{[ Transports: WIFI "
    "Capabilities: NOT_METERED&INTERNET&NOT_RESTRICTED&TRUSTED&NOT_VPN&VALIDATED&NOT_ROAMING"
    "&FOREGROUND&NOT_CONGESTED&NOT_SUSPENDED&NOT_VCN_MANAGED LinkUpBandwidth>=30000Kbps "
    'LinkDnBandwidth>=30000Kbps SignalStrength: -50 SSID: "AndroidWifi" '
    "UnderlyingNetworks: Null]}  factorySerialNumber=2}"
)
OLD_NAI = (
    "  NetworkAgentInfo{ ni{[type: WIFI[], state: CONNECTED/CONNECTED, reason: "
    '(unspecified), extra: "Hotel", failover: false, available: true, roaming: false]}  '
    "network{101}  nethandle{434102426637}  lp{{InterfaceName: wlan0}}  nc{[ Transports: "
    "WIFI Capabilities: NOT_METERED&INTERNET&NOT_RESTRICTED&TRUSTED&NOT_VPN&CAPTIVE_PORTAL "
    "LinkUpBandwidth>=1048576Kbps]}  Score{20}  everValidated{false}  lastValidated{false}  "
    "created{true} lingering{false} explicitlySelected{false} acceptUnvalidated{false} "
    "everCaptivePortalDetected{true} lastCaptivePortalDetected{true} }"
)


def test_the_default_network_from_dumpsys_connectivity() -> None:
    modern = parse_default_network(
        f"NetworkProviders for:\n\nActive default network: 100\n\nCurrent Networks:\n{MODERN_NAI}\n"
    )
    assert modern is not None
    assert (modern.network_id, modern.transport, modern.validated) == (100, "WIFI", True)
    assert (modern.captive_portal, modern.partial_connectivity, modern.ssid) == (
        False, False, "AndroidWifi",
    )  # fmt: skip
    old = parse_default_network(f"Active default network: 101\nCurrent Networks:\n{OLD_NAI}\n")
    assert old is not None
    assert (old.transport, old.validated, old.captive_portal) == ("WIFI", False, True)
    none = parse_default_network("Active default network: none\n\nCurrent Networks:\n")
    assert none is not None and none.network_id is None and none.validated is False
    assert parse_default_network("Can't find service: connectivity\n") is None
    unlisted = parse_default_network(f"Active default network: 7\n{MODERN_NAI}\n")
    assert unlisted is not None and unlisted.transport is None and unlisted.validated is None


def test_cmd_wifi_status() -> None:
    connected = parse_wifi_status(
        "Wifi is enabled\nWifi scanning is always available\n"
        "==== Primary ClientModeManager instance ====\n"
        'Wifi is connected to "AndroidWifi"\n'
        'WifiInfo: SSID: "AndroidWifi", BSSID: 00:13:10:85:fe:01, RSSI: -50\n'
    )
    assert connected is not None
    assert (connected.enabled, connected.connected, connected.ssid) == (True, True, "AndroidWifi")
    off = parse_wifi_status("Wifi is disabled\nWifi scanning is only available when wifi is on\n")
    assert off is not None and (off.enabled, off.connected, off.ssid) == (False, False, None)
    idle = parse_wifi_status("Wifi is enabled\nWifi is not connected\n")
    assert idle is not None and idle.connected is False
    assert parse_wifi_status("Unknown command: status\n") is None


# A real Android 9 (AEX ROM) NetworkAgentInfo, as `dumpsys connectivity | grep -E ...` showed
# it in a session transcript (search index id 52777198942; repository not named there). The
# grep dropped the "Active default network" line; the test puts it back.
ANDROID_9_NAI = (
    "  NetworkAgentInfo{ ni{[type: WIFI[], state: CONNECTED/CONNECTED, reason: (unspecified), "
    "extra: (none), failover: false, available: true, roaming: false]}  network{100}  "
    "nethandle{432902426637}  lp{{InterfaceName: wlan0 LinkAddresses: "
    "[fe80::c60b:cbff:feaf:18b9/64,192.168.0.104/24,]  Routes: [fe80::/64 -> :: wlan0,"
    "192.168.0.0/24 -> 0.0.0.0 wlan0,0.0.0.0/0 -> 192.168.0.1 wlan0,] DnsAddresses: [9.9.9.9,] "
    "UsePrivateDns: true PrivateDnsServerName: null Domains: null MTU: 0 TcpBufferSizes: "
    "524288,2097152,4194304,262144,524288,1048576}}  nc{[ Transports: WIFI Capabilities: "
    "NOT_METERED&INTERNET&NOT_RESTRICTED&TRUSTED&NOT_VPN&VALIDATED&NOT_ROAMING&FOREGROUND&"
    "NOT_CONGESTED&NOT_SUSPENDED Unwanted:  LinkUpBandwidth>=1048576Kbps "
    'LinkDnBandwidth>=1048576Kbps SignalStrength: -37 SSID: "Mohibul Alam"]}  Score{60}  '
    "everValidated{true}  lastValidated{true}  created{true} lingering{false} "
    "explicitlySelected{true} acceptUnvalidated{false} everCaptivePortalDetected{false} "
    "lastCaptivePortalDetected{false} clat{null} }"
)


def test_a_real_android_9_network_agent() -> None:
    found = parse_default_network(
        "NetworkFactories for: WIFI Ethernet TelephonyNetworkFactory[0]\n\n"
        f"Active default network: 100\n\nCurrent Networks:\n{ANDROID_9_NAI}\n"
    )
    assert found is not None
    assert (found.transport, found.validated, found.captive_portal, found.ssid) == (
        "WIFI", True, False, "Mohibul Alam",
    )  # fmt: skip
    assert (found.interface, found.gateway, found.addresses) == (
        "wlan0", "192.168.0.1", ("fe80::c60b:cbff:feaf:18b9/64", "192.168.0.104/24"),
    )  # fmt: skip


# A Samsung phone (serial R58N94KML7J, Android 13+ layouts), from a network diagnostic a
# script saved (search index id 52624120156; repository not named there): `cmd wifi status`
# and the start of `dumpsys connectivity` (its NetworkProviders list and the agent's
# TransportInfo shortened, the NetworkRequest lines after the agent left out).
SAMSUNG_WIFI_STATUS = (
    "Wifi is enabled\n"
    "Wifi scanning is only available when wifi is enabled\n"
    "==== Primary ClientModeManager instance ====\n"
    'Wifi is connected to "XLVII"\n'
    'WifiInfo: SSID: "XLVII", BSSID: 90:09:d0:29:c1:69, MAC: 2e:63:0e:c3:65:4f, IP: '
    "/192.168.10.121, Security type: 2, Supplicant state: COMPLETED, Wi-Fi standard: 5, RSSI: "
    "-38, Link speed: 433Mbps, Tx Link speed: 433Mbps, Max Supported Tx Link speed: 433Mbps, "
    "Rx Link speed: 6Mbps, Max Supported Rx Link speed: 433Mbps, Frequency: 5520MHz, Net ID: "
    "7, Metered hint: false, score: 60, isUsable: true, CarrierMerged: false, SubscriptionId: "
    "-1, IsPrimary: 1, Trusted: true, Restricted: false, Ephemeral: false, OEM paid: false, "
    "OEM private: false, OSU AP: false, FQDN: <none>, Provider friendly name: <none>, "
    'Requesting package name: <none>"XLVII"wpa2-pskMLO Information: , AP MLD Address: <none>, '
    "AP MLO Link Id: <none>, AP MLO Affiliated links: <none>\n"
    "successfulTxPackets: 390\n"
)
SAMSUNG_CONNECTIVITY = (
    "NetworkProviders for:\n"
    "  4: PhoneSwitcherNetworkRequstListener\n"
    "  2: VcnNetworkProvider\n"
    "  7: WifiNetworkFactory\n"
    "\n"
    "Active default network: 106\n"
    "\n"
    "Current network preferences: \n"
    "  Default requests:\n"
    "\n"
    "Current Networks:\n"
    "  NetworkAgentInfo{network{106}  handle{458672230413}  ni{WIFI CONNECTED extra: } "
    "Score(60 ; KeepConnected : 0 ; Policies : TRANSPORT_PRIMARY&EVER_VALIDATED_NOT_AVOIDED_"
    "WHEN_BAD&IS_UNMETERED&IS_VALIDATED)  created everValidated lastValidated  "
    "lp{{InterfaceName: wlan0 LinkAddresses: [ fe80::2c63:eff:fec3:654f/64,192.168.10.121/24 ] "
    "DnsAddresses: [ /192.168.10.1 ] Domains: ursu.cloud MTU: 0 ServerAddress: /192.168.10.1 "
    "TcpBufferSizes: 524288,1048576,2097152,262144,524288,1048576 Routes: [ fe80::/64 -> :: "
    "wlan0 mtu 0,192.168.10.0/24 -> 0.0.0.0 wlan0 mtu 0,0.0.0.0/0 -> 192.168.10.1 wlan0 mtu 0 "
    "]}}  nc{[ Transports: WIFI Capabilities: NOT_METERED&INTERNET&NOT_RESTRICTED&TRUSTED&"
    "NOT_VPN&VALIDATED&NOT_ROAMING&FOREGROUND&NOT_CONGESTED&NOT_SUSPENDED&NOT_VCN_MANAGED "
    "LinkUpBandwidth>=12000Kbps LinkDnBandwidth>=60000Kbps Specifier: "
    '<WifiNetworkAgentSpecifier [WifiConfiguration=, SSID="XLVII", BSSID=90:09:d0:29:c1:69, '
    'band=2, mMatchLocalOnlySpecifiers=false]> TransportInfo: <SSID: "XLVII", BSSID: '
    "90:09:d0:29:c1:69, MAC: 2e:63:0e:c3:65:4f, IP: /192.168.10.121, Security type: 2, "
    "Supplicant state: COMPLETED, Wi-Fi standard: 5, RSSI: -36, Link speed: 433Mbps> "
    'SignalStrength: -36 OwnerUid: 1000 AdminUids: [1000] SSID: "XLVII" UnderlyingNetworks: '
    "Null]}  factorySerialNumber=7}\n"
    "    Requests: REQUEST:51 LISTEN:30 BACKGROUND_REQUEST:0 total:81\n"
)


def test_a_real_samsung_wifi_status_and_default_network() -> None:
    wifi = parse_wifi_status(SAMSUNG_WIFI_STATUS)
    assert wifi is not None and (wifi.enabled, wifi.connected, wifi.ssid) == (True, True, "XLVII")
    default = parse_default_network(SAMSUNG_CONNECTIVITY)
    assert default is not None
    assert (default.network_id, default.transport, default.validated, default.ssid) == (
        106, "WIFI", True, "XLVII",
    )  # fmt: skip
    assert (default.captive_portal, default.partial_connectivity) == (False, False)
    assert (default.interface, default.gateway, default.addresses) == (
        "wlan0", "192.168.10.1", ("fe80::2c63:eff:fec3:654f/64", "192.168.10.121/24"),
    )  # fmt: skip
    # its `ip route` (main table) has no default route: the route comes from `ip route get`
    assert parse_route("") is None


# A phone's `ip link` (excerpt) and `ip addr show wlan0`, from notes on adb networking
# commands (search index id 10896782294; repository not named there): empty flags, "mode
# DORMANT" after the state.
REAL_IP_LINK_AND_ADDR = """\
25: r_rmnet_data8: <> mtu 1500 qdisc noop state DOWN mode DEFAULT group default qlen 1000
    link/[530]
26: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DORMANT group default qlen 3000
    link/ether 40:4e:36:93:9a:78 brd ff:ff:ff:ff:ff:ff
27: p2p0: <BROADCAST,MULTICAST> mtu 1500 qdisc mq state DOWN mode DEFAULT group default qlen 3000
    link/ether 42:4e:36:93:9a:78 brd ff:ff:ff:ff:ff:ff
26: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 3000
    link/ether 40:4e:36:93:9a:78 brd ff:ff:ff:ff:ff:ff
    inet 192.168.1.11/24 brd 192.168.1.255 scope global wlan0
       valid_lft forever preferred_lft forever
    inet6 fe80::424e:36ff:fe93:9a78/64 scope link
       valid_lft forever preferred_lft forever
"""  # noqa: E501 (lines as the device printed them)


def test_real_ip_link_and_addr_lines() -> None:
    found = parse_ip_addr(REAL_IP_LINK_AND_ADDR)
    assert [(i.name, i.up, i.mac) for i in found] == [
        ("r_rmnet_data8", False, None),
        ("wlan0", True, "40:4e:36:93:9a:78"),
        ("p2p0", False, "42:4e:36:93:9a:78"),
        ("wlan0", True, "40:4e:36:93:9a:78"),
    ]
    assert found[-1].addresses == ("192.168.1.11/24", "fe80::424e:36ff:fe93:9a78/64")
