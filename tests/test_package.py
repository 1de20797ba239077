import ghattempt


def test_version_is_a_string():
    assert ghattempt.__version__.count(".") == 2
