"""Where doctor and the wizard look for the GPU machine's speech-to-text server."""

from __future__ import annotations

from aria_desktop.domain.speech_servers import server_host, speech_server_candidates


def test_the_configured_server_comes_first_then_each_model_machine_on_port_10300() -> None:
    found = speech_server_candidates(
        "tcp://127.0.0.1:10300", ["http://gpu.lan:11434", "http://192.168.1.20:8080/v1"]
    )
    assert found == (
        "tcp://127.0.0.1:10300",
        "tcp://gpu.lan:10300",
        "tcp://192.168.1.20:10300",
    )


def test_this_computer_and_repeats_add_nothing() -> None:
    found = speech_server_candidates(
        "tcp://gpu.lan:10300",
        ["http://127.0.0.1:11434", "http://localhost:8080", "http://gpu.lan:11434", ""],
    )
    assert found == ("tcp://gpu.lan:10300",)


def test_ipv6_hosts_keep_their_brackets_and_bad_addresses_are_skipped() -> None:
    found = speech_server_candidates("", ["http://[fd00::7]:11434", "http://[bad"])
    assert found == ("tcp://[fd00::7]:10300",)
    assert server_host("tcp://[fd00::7]:10300") == "fd00::7"
    assert server_host("unix:///run/whisper.sock") == ""
