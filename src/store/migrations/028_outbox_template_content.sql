-- A queued email now carries the content of its template (subject, HTML and text) beside the
-- template's id, copied in when it is queued, so sending reads no template. Messages not finished
-- yet that name only the id get the content here; one whose template was removed meanwhile gets
-- none and goes out as the built-in email, as it would have before.
UPDATE outbox o
   SET payload = o.payload || jsonb_strip_nulls(jsonb_build_object('template',
         (SELECT jsonb_build_object('subject', t.subject, 'html', t.html, 'text', t.text)
            FROM email_templates t
           WHERE t.id::text = o.payload->>'templateId' AND t.organization_id = o.organization_id)))
 WHERE o.status IN ('queued', 'retrying', 'sending') AND o.payload ? 'templateId';
