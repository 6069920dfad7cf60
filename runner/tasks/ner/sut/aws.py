"""AWS Comprehend named-entity recognition (BatchDetectEntities, 25 texts per call) through boto3.

Credentials and region come from boto3's standard chain (environment, shared config and
credentials files, SSO, instance roles); nothing is read or stored by mtrun. botocore's own
retries are turned off so that one policy (exponential backoff with jitter, Retry-After honoured)
governs every remote system. Offsets are code points, end exclusive; each span is checked against
the entity's text and repaired when the service counted otherwise (UTF-16 units, UTF-8 bytes).
A text over 5,000 UTF-8 bytes is marked ``error`` without being sent.
"""
from __future__ import annotations

from typing import Any, Sequence

from runner.errors import ModelNotAvailable
from runner.tasks.ner.sut.base import NERSystem, RawSpan
from runner.sut.remote import (Retry, RetryPolicy, SUTAuthError, SUTCallError, count_unaligned,
                               parse_retry_after, realign)

MAX_TEXTS = 25
MAX_BYTES = 5000
_RETRYABLE_CODES = {"ThrottlingException", "TooManyRequestsException", "InternalServerException",
                    "ServiceUnavailableException", "RequestTimeout", "RequestTimeoutException",
                    "ProvisionedThroughputExceededException", "SlowDown"}
_THROTTLING_CODES = {"ThrottlingException", "TooManyRequestsException",
                     "ProvisionedThroughputExceededException", "SlowDown"}
_AUTH_CODES = {"UnrecognizedClientException", "InvalidSignatureException", "AccessDeniedException",
               "ExpiredTokenException", "InvalidClientTokenId", "MissingAuthenticationToken",
               "IncompleteSignature", "SignatureDoesNotMatch"}


class ComprehendNER(NERSystem):
    name = "aws"
    remote = True

    def __init__(self, *, region: str | None = None, profile: str | None = None,
                 endpoint_url: str | None = None, language: str = "en", concurrency: int = 4,
                 retry: dict[str, Any] | None = None, batch_size: int = MAX_TEXTS,
                 **kwargs: Any) -> None:
        super().__init__(batch_size=min(batch_size, MAX_TEXTS), **kwargs)
        try:
            import boto3
            import botocore.exceptions
            from botocore.config import Config
        except ImportError:
            raise ModelNotAvailable("the aws system under test needs boto3: "
                                    "pip install -e \".[aws]\" (or pip install boto3)") from None
        self.policy = RetryPolicy.from_params(retry or {})
        import os

        region = region or os.environ.get("AWS_REGION") or None  # older botocore reads only
        try:                                                       # AWS_DEFAULT_REGION
            session = boto3.Session(profile_name=profile, region_name=region)
        except botocore.exceptions.ProfileNotFound as exc:
            raise ModelNotAvailable(f"aws: {exc}") from None
        missing = []
        if session.region_name is None:
            missing.append("no region: set AWS_REGION (or AWS_DEFAULT_REGION), a region in the "
                           "AWS profile, or sut.region in the suite")
        if session.get_credentials() is None:
            missing.append("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and "
                           "AWS_SESSION_TOKEN for temporary ones), or AWS_PROFILE, or run where "
                           "an instance role is available")
        if missing:
            raise ModelNotAvailable("the aws system under test has " + "; and ".join(missing))
        config = Config(retries={"total_max_attempts": 1, "mode": "standard"},
                        connect_timeout=self.policy.timeout, read_timeout=self.policy.timeout,
                        max_pool_connections=max(10, concurrency))
        self.client = session.client("comprehend", endpoint_url=endpoint_url, config=config)
        self.region = session.region_name
        self.endpoint_url = endpoint_url
        self.language = language
        self.concurrency = concurrency
        self._errors = botocore.exceptions

    def describe(self) -> dict[str, Any]:
        d = {"backend": "aws-comprehend", "operation": "BatchDetectEntities",
             "region": self.region, "language": self.language}
        if self.endpoint_url:
            d["endpoint"] = self.endpoint_url
        return d

    def _predict_raw(self, texts: Sequence[str]) -> list[Any]:
        out: list[Any] = [None] * len(texts)
        send = []
        for i, text in enumerate(texts):
            size = len(text.encode("utf-8"))
            if size > MAX_BYTES:
                out[i] = SUTCallError(f"aws: the text has {size} UTF-8 bytes; Comprehend takes at "
                                      f"most {MAX_BYTES} per text")
            else:
                send.append(i)
        if not send:
            return out
        answer = self.policy.call(lambda: self._once([texts[i] for i in send]),
                                  f"aws BatchDetectEntities ({len(send)} text(s))")
        for item in answer.get("ResultList", []):
            i = send[int(item["Index"])]
            out[i] = self._spans(texts[i], item.get("Entities", []))
        for item in answer.get("ErrorList", []):
            i = send[int(item["Index"])]
            out[i] = SUTCallError(f"aws: {item.get('ErrorCode', 'error')}: "
                                  f"{item.get('ErrorMessage', '')}".rstrip(": "))
        for i in send:
            if out[i] is None:
                out[i] = SUTCallError("aws: the answer left this text out")
        return out

    def _once(self, texts: list[str]) -> dict[str, Any]:
        errors = self._errors
        try:
            return self.client.batch_detect_entities(TextList=texts, LanguageCode=self.language)
        except errors.ClientError as exc:
            err = exc.response.get("Error", {})
            code = err.get("Code", "")
            meta = exc.response.get("ResponseMetadata", {})
            status = int(meta.get("HTTPStatusCode") or 0)
            reason = f"{code or 'HTTP ' + str(status)}: {err.get('Message', '')}".rstrip(": ")
            if code in _AUTH_CODES:
                raise SUTAuthError(f"aws: the service refused the credentials ({reason}); check "
                                   "the AWS credentials and region") from None
            if code in _RETRYABLE_CODES or status == 429 or status >= 500:
                headers = meta.get("HTTPHeaders", {})
                raise Retry(reason, parse_retry_after(headers.get("retry-after")),
                            throttled=status == 429 or code in _THROTTLING_CODES) from None
            raise SUTCallError(f"aws: {reason}") from None
        except (errors.EndpointConnectionError, errors.ConnectionClosedError,
                errors.ReadTimeoutError, errors.ConnectTimeoutError) as exc:
            raise Retry(f"{type(exc).__name__}: {exc}") from None

    def _spans(self, text: str, entities: list[dict[str, Any]]) -> list[RawSpan]:
        spans = []
        for e in entities:
            where = realign(text, int(e["BeginOffset"]), int(e["EndOffset"]), e.get("Text"))
            if where is None or where[0] >= where[1]:
                count_unaligned(self)  # its text is nowhere in the sentence
                continue
            spans.append((where[0], where[1], str(e["Type"]), e.get("Score")))
        return spans
