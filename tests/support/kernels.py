"""Running code in a Jupyter kernel as a notebook's cell runs, for the tests of the check from a notebook's last cell."""


def printed_by(client, code, timeout=300):
    """Run ``code`` through the kernel ``client`` (a blocking client of a started kernel), as a notebook's cell;
    return what it printed (its streams, and any result or error), after checking that it ran without error."""
    printed = []

    def keep(message):
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])
        elif message["msg_type"] in ("error", "execute_result"):
            printed.append(repr(message["content"]))

    try:
        client.start_channels()
        client.wait_for_ready(timeout=120)
        reply = client.execute_interactive(code, output_hook=keep, timeout=timeout)
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        client.stop_channels()
    return "".join(printed)
