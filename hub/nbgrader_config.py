"""nbgrader's configuration for every server on the course's hub (installed into the environment's etc/jupyter).

The Assignments panel and nbgrader's commands use the course exchange
(:mod:`perceptron_course.hub.nbgrader_exchange`), which the hub's service
holds; no folder is shared between users.
"""

c = get_config()  # noqa: F821  (provided by traitlets when nbgrader loads this file)

_exchange = "perceptron_course.hub.nbgrader_exchange."
c.ExchangeFactory.exchange = _exchange + "Exchange"
c.ExchangeFactory.fetch_assignment = _exchange + "ExchangeFetchAssignment"
c.ExchangeFactory.fetch_feedback = _exchange + "ExchangeFetchFeedback"
c.ExchangeFactory.release_assignment = _exchange + "ExchangeReleaseAssignment"
c.ExchangeFactory.release_feedback = _exchange + "ExchangeReleaseFeedback"
c.ExchangeFactory.list = _exchange + "ExchangeList"
c.ExchangeFactory.submit = _exchange + "ExchangeSubmit"
c.ExchangeFactory.collect = _exchange + "ExchangeCollect"
